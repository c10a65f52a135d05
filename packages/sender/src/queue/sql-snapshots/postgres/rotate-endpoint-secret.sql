SELECT * FROM webhook_endpoints WHERE id = $1 AND subscriber_id = $2 FOR UPDATE;
