SELECT * FROM webhook_messages m WHERE m.id = ? AND (m.subscriber_id = ? OR EXISTS (SELECT 1 FROM webhook_deliveries d
              WHERE d.message_id = m.id AND d.endpoint_id IN (SELECT id FROM webhook_endpoints WHERE subscriber_id = ?)));
