SELECT secrets, signature_headers, token FROM webhook_endpoints
        WHERE id = ? AND subscriber_id = ?;

SELECT d.message_id, m.webhook_id, m.event_type, m.payload, m.created_at
        FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
        WHERE d.endpoint_id = ? AND d.message_id >= ?
        ORDER BY d.message_id LIMIT ?;

SELECT message_id FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY message_id LIMIT 1;
