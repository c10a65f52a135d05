UPDATE webhook_endpoints
        SET verified_at = CASE WHEN subscriber_id IS NULL THEN verified_at ELSE ? END
        WHERE id = ? AND subscriber_id = ? AND url = ? RETURNING *;
