SELECT * FROM webhook_attempts WHERE delivery_id = $1 AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = $2
              AND d.endpoint_id IN (SELECT id FROM webhook_endpoints WHERE subscriber_id = $3)) ORDER BY id;
