SELECT id, filter FROM webhook_endpoints WHERE id = ? AND subscriber_id = ?;

SELECT m.id, m.event_type, m.payload FROM webhook_messages m, webhook_endpoints e WHERE e.id = ? AND m.created_at >= ?
          AND (((m.subscriber_id IS NULL AND (e.subscriber_id IS NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) OR m.subscriber_id = e.subscriber_id) AND (e.event_types IS NOT NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) AND (e.event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(e.event_types) AS t WHERE t.value = m.event_type
      OR (substr(t.value, -1) = '*' AND substr(m.event_type, 1, length(t.value) - 1) = substr(t.value, 1, length(t.value) - 1))))
          ORDER BY m.id;

INSERT INTO webhook_exclusions (endpoint_id, message_id)
        SELECT ?, x.message_id FROM (SELECT column1 AS message_id, column2 AS n FROM (VALUES (?, ?)) WHERE column2 IS NOT NULL) AS x
        WHERE true ON CONFLICT (endpoint_id, message_id) DO NOTHING;

UPDATE webhook_endpoints SET filtered_count = filtered_count + ? WHERE id = ?;
