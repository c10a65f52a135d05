SELECT * FROM webhook_endpoints WHERE id = ? AND subscriber_id = ?;
