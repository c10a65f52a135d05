SELECT * FROM webhook_deliveries WHERE id = ? AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE subscriber_id = ?);
