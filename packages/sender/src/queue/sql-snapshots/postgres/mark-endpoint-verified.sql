UPDATE webhook_endpoints
        SET verified_at = CASE WHEN subscriber_id IS NULL THEN verified_at ELSE (extract(epoch FROM statement_timestamp()) * 1000)::bigint END
        WHERE id = $1 AND subscriber_id = $2 AND url = $3 RETURNING *;
