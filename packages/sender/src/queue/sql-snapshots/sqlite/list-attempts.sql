SELECT * FROM webhook_attempts WHERE delivery_id = ? AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = ?
              AND d.endpoint_id IN (SELECT id FROM webhook_endpoints WHERE subscriber_id = ?)) ORDER BY id;
