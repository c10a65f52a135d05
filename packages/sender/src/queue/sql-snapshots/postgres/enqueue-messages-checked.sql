WITH fs AS (SELECT encode(sha256(convert_to(COALESCE(
    string_agg(id::text || ':' || length(filter)::text || ':' || filter, ',' ORDER BY id), ''), 'UTF8')), 'hex') AS fingerprint
  FROM webhook_endpoints WHERE filter IS NOT NULL),
        m AS (INSERT INTO webhook_messages (webhook_id, event_type, idempotency_key, payload, created_at, traceparent, subscriber_id, ordering_key)
    SELECT webhook_id, event_type, idempotency_key, payload, (extract(epoch FROM statement_timestamp()) * 1000)::bigint, traceparent, subscriber_id, ordering_key FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[]) WITH ORDINALITY AS input(webhook_id, event_type, idempotency_key, payload, traceparent, subscriber_id, ordering_key, n) WHERE (SELECT fingerprint FROM fs) = $8::text ORDER BY n
    ON CONFLICT DO NOTHING RETURNING id, webhook_id, event_type, subscriber_id, ordering_key, created_at),
        d AS (INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
    SELECT m.id, e.id, m.webhook_id, m.event_type, m.ordering_key, 'pending', m.created_at, m.created_at, m.created_at
    FROM m CROSS JOIN webhook_endpoints e
    WHERE true AND e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL) AND (((m.subscriber_id IS NULL AND (e.subscriber_id IS NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) OR m.subscriber_id = e.subscriber_id) AND (e.event_types IS NOT NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed'))))
      AND (e.event_types IS NULL OR EXISTS (SELECT 1 FROM json_array_elements_text(e.event_types::json) AS t(v)
      WHERE t.v = m.event_type OR (right(t.v, 1) = '*' AND starts_with(m.event_type, left(t.v, -1)))))
    ORDER BY m.id, e.id RETURNING message_id),
        n AS (SELECT pg_notify($9::text, '') FROM (SELECT 1 FROM d LIMIT 1) AS any_delivery)
        SELECT m.id, m.webhook_id, COALESCE(per.deliveries, 0)::int AS deliveries, (SELECT count(*) FROM n) AS notified
        FROM m LEFT JOIN (SELECT message_id, count(*) AS deliveries FROM d GROUP BY message_id) per ON per.message_id = m.id
        UNION ALL SELECT NULL, NULL, NULL, NULL FROM fs WHERE fingerprint <> $10::text;
