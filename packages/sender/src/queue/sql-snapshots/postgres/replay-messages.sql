SELECT id FROM webhook_endpoints WHERE id = $1 AND subscriber_id = $2;

INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
        SELECT m.id, e.id, m.webhook_id, m.event_type, m.ordering_key, 'pending', (extract(epoch FROM statement_timestamp()) * 1000)::bigint, (extract(epoch FROM statement_timestamp()) * 1000)::bigint, (extract(epoch FROM statement_timestamp()) * 1000)::bigint
        FROM webhook_messages m, webhook_endpoints e
        WHERE e.id = $1 AND m.created_at >= $2
          AND (((m.subscriber_id IS NULL AND (e.subscriber_id IS NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) OR m.subscriber_id = e.subscriber_id) AND (e.event_types IS NOT NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) AND (e.event_types IS NULL OR EXISTS (SELECT 1 FROM json_array_elements_text(e.event_types::json) AS t(v)
      WHERE t.v = m.event_type OR (right(t.v, 1) = '*' AND starts_with(m.event_type, left(t.v, -1)))))
        ORDER BY m.id
        ON CONFLICT (message_id, endpoint_id) DO UPDATE SET
          status = 'pending', round_attempts = 0, next_attempt_at = (extract(epoch FROM statement_timestamp()) * 1000)::bigint, updated_at = (extract(epoch FROM statement_timestamp()) * 1000)::bigint,
          lease_owner = NULL, lease_until = NULL;

-- wake the workers once committed
