UPDATE webhook_endpoints SET status = $1, disabled_reason = $2, failing_since = failing_since
        WHERE id = $3 AND subscriber_id = $4 RETURNING *;
