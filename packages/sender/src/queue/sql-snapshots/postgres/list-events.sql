SELECT secrets, signature_headers FROM webhook_endpoints
        WHERE id = $1 AND subscriber_id = $2;

SELECT d.message_id, m.webhook_id, m.event_type, m.payload, m.created_at
        FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
        WHERE d.endpoint_id = $1 AND d.message_id >= $2
        ORDER BY d.message_id LIMIT $3;

SELECT message_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY message_id LIMIT 1;
