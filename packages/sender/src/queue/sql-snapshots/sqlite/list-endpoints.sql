SELECT * FROM webhook_endpoints WHERE subscriber_id = ? ORDER BY id;
