SELECT e.id, min(e.rate_limit, COALESCE(e.rate_tokens, e.rate_limit) + (? - COALESCE(e.rate_at, ?)) * e.rate_limit / 1000.0) AS available FROM webhook_endpoints e
          WHERE e.rate_limit IS NOT NULL AND e.status = 'active';

UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? + ?
          WHERE id IN (
            SELECT d.id FROM webhook_endpoints e JOIN webhook_deliveries d ON d.id IN (
              SELECT x.id FROM webhook_deliveries x
              WHERE x.endpoint_id = e.id AND x.status = 'pending' AND x.next_attempt_at <= ?
                AND (x.lease_until IS NULL OR x.lease_until <= ?)
                AND NOT (x.id IN (SELECT value FROM json_each(?))) AND (x.ordering_key IS NULL OR NOT EXISTS (
    SELECT 1 FROM webhook_deliveries o WHERE o.endpoint_id = x.endpoint_id
      AND o.ordering_key = x.ordering_key AND o.status = 'pending' AND o.id < x.id))
              ORDER BY x.next_attempt_at, x.id LIMIT ?)
            WHERE e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL)
              AND NOT (e.id = ?)
            ORDER BY d.next_attempt_at, d.id LIMIT ?)
          RETURNING id;

UPDATE webhook_endpoints SET rate_tokens = ?, rate_at = ?
            WHERE id = ?;

SELECT d.id, d.message_id, d.endpoint_id, d.webhook_id, d.event_type, d.ordering_key, d.status, d.attempt_count, d.round_attempts, d.next_attempt_at, d.lease_owner, d.lease_until, d.last_status, d.last_error, d.created_at, d.updated_at, m.payload AS m_payload, m.traceparent AS m_traceparent, e.url AS e_url, e.token AS e_token, e.secrets AS e_secrets, e.status AS e_status, e.disabled_reason AS e_disabled_reason, e.failing_since AS e_failing_since, e.last_failure_at AS e_last_failure_at, e.event_types AS e_event_types, e.rate_limit AS e_rate_limit, e.subscriber_id AS e_subscriber_id, e.verified_at AS e_verified_at, e.created_at AS e_created_at FROM webhook_deliveries d
          JOIN webhook_messages m ON m.id = d.message_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.id = ?;
