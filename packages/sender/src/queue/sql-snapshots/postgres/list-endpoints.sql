SELECT * FROM webhook_endpoints WHERE subscriber_id = $1 ORDER BY id;
