SELECT id, subscriber_id FROM webhook_endpoints
        WHERE id = $1 AND subscriber_id = $2;

INSERT INTO webhook_messages (webhook_id, event_type, payload, created_at, traceparent, subscriber_id, ordering_key)
        VALUES ($1, $2, $3, (extract(epoch FROM statement_timestamp()) * 1000)::bigint, $4, $5, $6)
        RETURNING id;

INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
        VALUES ($1, $2, $3, $4, $5, 'pending', (extract(epoch FROM statement_timestamp()) * 1000)::bigint, (extract(epoch FROM statement_timestamp()) * 1000)::bigint, (extract(epoch FROM statement_timestamp()) * 1000)::bigint)
        RETURNING id;

-- wake the workers once committed
