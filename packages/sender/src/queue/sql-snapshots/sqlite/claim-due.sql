WITH RECURSIVE pending (id) AS (
          SELECT (SELECT endpoint_id FROM webhook_deliveries INDEXED BY webhook_deliveries_pending_due
            WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
          UNION ALL
          SELECT (SELECT x.endpoint_id FROM webhook_deliveries x INDEXED BY webhook_deliveries_pending_due
            WHERE x.status = 'pending' AND x.endpoint_id > p.id ORDER BY x.endpoint_id LIMIT 1)
          FROM pending p WHERE p.id IS NOT NULL)
        SELECT e.id, COALESCE(e.subscriber_id, 0) AS owner, e.rate_limit, e.rate_next_at, e.timeouts, e.slow_until,
          ? AS now_ms
        FROM pending p CROSS JOIN webhook_endpoints e ON e.id = p.id
        WHERE e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL) AND NOT (e.id IN (SELECT value FROM json_each(?)))
        AND NOT (COALESCE(e.subscriber_id, 0) IN (SELECT value FROM json_each(?)));

SELECT d.id, d.endpoint_id, d.next_attempt_at FROM json_each(?) j
          JOIN webhook_deliveries d ON d.id IN (
            SELECT x.id FROM webhook_deliveries x
            WHERE x.endpoint_id = j.value AND x.status = 'pending' AND x.next_attempt_at <= ?
          AND (x.lease_until IS NULL OR x.lease_until <= ?)
          AND NOT (x.id IN (SELECT value FROM json_each(?))) AND (x.ordering_key IS NULL OR NOT EXISTS (
    SELECT 1 FROM webhook_deliveries o WHERE o.endpoint_id = x.endpoint_id
      AND o.ordering_key = x.ordering_key AND o.status = 'pending' AND o.id < x.id))
            ORDER BY x.next_attempt_at, x.id LIMIT ?)
        ORDER BY d.endpoint_id, d.next_attempt_at, d.id;

UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? + ?
                WHERE id = ? RETURNING id, endpoint_id, next_attempt_at;

SELECT d.id, d.message_id, d.endpoint_id, d.webhook_id, d.event_type, d.ordering_key, d.status, d.attempt_count, d.round_attempts, d.next_attempt_at, d.lease_owner, d.lease_until, d.last_status, d.last_error, d.created_at, d.updated_at, m.payload AS m_payload, m.traceparent AS m_traceparent, e.url AS e_url, e.token AS e_token, e.secrets AS e_secrets, e.status AS e_status, e.disabled_reason AS e_disabled_reason, e.failing_since AS e_failing_since, e.last_failure_at AS e_last_failure_at, e.event_types AS e_event_types, e.rate_limit AS e_rate_limit, e.subscriber_id AS e_subscriber_id, e.verified_at AS e_verified_at, e.signature_headers AS e_signature_headers, e.headers AS e_headers, e.filter AS e_filter, e.filtered_count AS e_filtered_count, e.created_at AS e_created_at FROM webhook_deliveries d
          JOIN webhook_messages m ON m.id = d.message_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.id = ?;
