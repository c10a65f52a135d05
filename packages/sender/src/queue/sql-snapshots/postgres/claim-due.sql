WITH limited AS (
      SELECT e.id, LEAST(e.rate_limit, COALESCE(e.rate_tokens, e.rate_limit) + ((extract(epoch FROM statement_timestamp()) * 1000)::bigint - COALESCE(e.rate_at, (extract(epoch FROM statement_timestamp()) * 1000)::bigint)) * e.rate_limit / 1000.0) AS available FROM webhook_endpoints e
      WHERE e.rate_limit IS NOT NULL AND e.status = 'active'
        AND NOT (e.id = ANY($1::bigint[]))
      FOR UPDATE SKIP LOCKED),
candidates AS (
      SELECT due.id FROM webhook_endpoints e LEFT JOIN limited l ON l.id = e.id CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= (extract(epoch FROM statement_timestamp()) * 1000)::bigint
          AND (d.lease_until IS NULL OR d.lease_until <= (extract(epoch FROM statement_timestamp()) * 1000)::bigint)
          AND NOT (d.id = ANY($2::bigint[])) AND (d.ordering_key IS NULL OR NOT EXISTS (
    SELECT 1 FROM webhook_deliveries o WHERE o.endpoint_id = d.endpoint_id
      AND o.ordering_key = d.ordering_key AND o.status = 'pending' AND o.id < d.id))
        ORDER BY d.next_attempt_at, d.id
        LIMIT CASE WHEN e.rate_limit IS NULL THEN $3::int
          ELSE LEAST($4::int, floor(COALESCE(l.available, 0))::int) END
      ) due
      WHERE e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL) AND NOT (e.id = ANY($5::bigint[]))
      ORDER BY due.next_attempt_at, due.id LIMIT $6::int),
locked AS (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.id IN (SELECT id FROM candidates) AND d.status = 'pending'
        AND (d.lease_until IS NULL OR d.lease_until <= (extract(epoch FROM statement_timestamp()) * 1000)::bigint)
      FOR UPDATE SKIP LOCKED),
lease AS (SELECT $7::text AS owner, (extract(epoch FROM statement_timestamp()) * 1000)::bigint + $8::bigint AS until),
claimed AS (UPDATE webhook_deliveries d SET lease_owner = lease.owner, lease_until = lease.until
      FROM locked, lease, webhook_messages m, webhook_endpoints e
      WHERE d.id = locked.id AND m.id = d.message_id AND e.id = d.endpoint_id
      RETURNING d.id, d.message_id, d.endpoint_id, d.webhook_id, d.event_type, d.ordering_key, d.status, d.attempt_count, d.round_attempts, d.next_attempt_at, d.lease_owner, d.lease_until, d.last_status, d.last_error, d.created_at, d.updated_at, m.payload AS m_payload, m.traceparent AS m_traceparent, e.url AS e_url, e.token AS e_token, e.secrets AS e_secrets, e.status AS e_status, e.disabled_reason AS e_disabled_reason, e.failing_since AS e_failing_since, e.last_failure_at AS e_last_failure_at, e.event_types AS e_event_types, e.rate_limit AS e_rate_limit, e.subscriber_id AS e_subscriber_id, e.verified_at AS e_verified_at, e.created_at AS e_created_at),
spent AS (UPDATE webhook_endpoints e SET rate_tokens = l.available - COALESCE(c.n, 0), rate_at = (extract(epoch FROM statement_timestamp()) * 1000)::bigint
      FROM limited l LEFT JOIN (SELECT endpoint_id, count(*) AS n FROM claimed GROUP BY endpoint_id) c
        ON c.endpoint_id = l.id
      WHERE e.id = l.id)
SELECT claimed.id, claimed.message_id, claimed.endpoint_id, claimed.webhook_id, claimed.event_type, claimed.ordering_key, claimed.status, claimed.attempt_count, claimed.round_attempts, claimed.next_attempt_at, claimed.lease_owner, claimed.lease_until, claimed.last_status, claimed.last_error, claimed.created_at, claimed.updated_at, claimed.m_payload, claimed.m_traceparent, claimed.e_url, claimed.e_token, claimed.e_secrets, claimed.e_status, claimed.e_disabled_reason, claimed.e_failing_since, claimed.e_last_failure_at, claimed.e_event_types, claimed.e_rate_limit, claimed.e_subscriber_id, claimed.e_verified_at, claimed.e_created_at FROM claimed;
