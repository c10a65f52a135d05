SELECT id, subscriber_id FROM webhook_endpoints
        WHERE id = ? AND subscriber_id = ?;

INSERT INTO webhook_messages (webhook_id, event_type, payload, created_at, traceparent, subscriber_id, ordering_key)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        RETURNING id;

INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)
        RETURNING id;

-- wake the workers once committed
