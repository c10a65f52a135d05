SELECT id, filter FROM webhook_endpoints WHERE id = $1 AND subscriber_id = $2;

SELECT m.id, m.event_type, m.payload FROM webhook_messages m, webhook_endpoints e WHERE e.id = $1 AND m.created_at >= $2
          AND (((m.subscriber_id IS NULL AND (e.subscriber_id IS NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) OR m.subscriber_id = e.subscriber_id) AND (e.event_types IS NOT NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) AND (e.event_types IS NULL OR EXISTS (SELECT 1 FROM json_array_elements_text(e.event_types::json) AS t(v)
      WHERE t.v = m.event_type OR (right(t.v, 1) = '*' AND starts_with(m.event_type, left(t.v, -1)))))
          ORDER BY m.id;

INSERT INTO webhook_exclusions (endpoint_id, message_id)
        SELECT $1::bigint, x.message_id FROM unnest($2::bigint[]) WITH ORDINALITY AS x(message_id, n)
        WHERE true ON CONFLICT (endpoint_id, message_id) DO NOTHING;

UPDATE webhook_endpoints SET filtered_count = filtered_count + $1 WHERE id = $2;
