SELECT e.id, e.filter FROM (SELECT ? AS event_type, ? AS subscriber_id) AS m CROSS JOIN webhook_endpoints e
        WHERE e.filter IS NOT NULL AND e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL) AND (((m.subscriber_id IS NULL AND (e.subscriber_id IS NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) OR m.subscriber_id = e.subscriber_id) AND (e.event_types IS NOT NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed'))))
          AND (e.event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(e.event_types) AS t WHERE t.value = m.event_type
      OR (substr(t.value, -1) = '*' AND substr(m.event_type, 1, length(t.value) - 1) = substr(t.value, 1, length(t.value) - 1))));

INSERT INTO webhook_messages (webhook_id, event_type, idempotency_key, payload, traceparent, subscriber_id, ordering_key, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING RETURNING id, webhook_id;

INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
    SELECT m.id, e.id, m.webhook_id, m.event_type, m.ordering_key, 'pending', m.created_at, m.created_at, m.created_at
    FROM webhook_messages m CROSS JOIN webhook_endpoints e
    WHERE m.id = ? AND e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL) AND (((m.subscriber_id IS NULL AND (e.subscriber_id IS NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) OR m.subscriber_id = e.subscriber_id) AND (e.event_types IS NOT NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed'))))
      AND (e.event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(e.event_types) AS t WHERE t.value = m.event_type
      OR (substr(t.value, -1) = '*' AND substr(m.event_type, 1, length(t.value) - 1) = substr(t.value, 1, length(t.value) - 1)))) AND NOT ((m.webhook_id || ' ' || e.id) = ?)
    ORDER BY m.id, e.id RETURNING message_id;

INSERT INTO webhook_exclusions (endpoint_id, message_id)
          SELECT f.endpoint_id, m.id FROM (SELECT column1 AS webhook_id, column2 AS endpoint_id, column3 AS n FROM (VALUES (?, ?, ?)) WHERE column3 IS NOT NULL) AS f CROSS JOIN webhook_messages m
            JOIN webhook_endpoints e ON e.id = f.endpoint_id
          WHERE m.webhook_id = f.webhook_id AND e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL)
            AND (((m.subscriber_id IS NULL AND (e.subscriber_id IS NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) OR m.subscriber_id = e.subscriber_id) AND (e.event_types IS NOT NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) AND (e.event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(e.event_types) AS t WHERE t.value = m.event_type
      OR (substr(t.value, -1) = '*' AND substr(m.event_type, 1, length(t.value) - 1) = substr(t.value, 1, length(t.value) - 1))))
          RETURNING endpoint_id;

UPDATE webhook_endpoints SET filtered_count = filtered_count + ?
          WHERE id = ?;

-- wake the workers once committed
