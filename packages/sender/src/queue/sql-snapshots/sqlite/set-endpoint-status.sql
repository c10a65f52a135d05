UPDATE webhook_endpoints SET status = ?, disabled_reason = ?, failing_since = failing_since
        WHERE id = ? AND subscriber_id = ? RETURNING *;
