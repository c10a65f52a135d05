-- keep each statement's plan for the transaction

SELECT id, message_id, endpoint_id, webhook_id, event_type, status, lease_owner, lease_until, attempt_count, round_attempts, next_attempt_at, (extract(epoch FROM statement_timestamp()) * 1000)::bigint AS now_ms, (SELECT e.failing_since FROM webhook_endpoints e
                WHERE e.id = webhook_deliveries.endpoint_id) AS endpoint_failing_since FROM webhook_deliveries
              WHERE id = ANY($1::bigint[]) ORDER BY id;

SELECT * FROM webhook_endpoints WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE;

WITH RECURSIVE pending (id) AS (
      SELECT (SELECT d.endpoint_id FROM webhook_deliveries d 
        WHERE d.status = 'pending' ORDER BY d.endpoint_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.endpoint_id FROM webhook_deliveries d 
        WHERE d.status = 'pending' AND d.endpoint_id > p.id ORDER BY d.endpoint_id LIMIT 1) FROM pending p WHERE p.id IS NOT NULL),
held AS (
      SELECT e.id, COALESCE(e.subscriber_id, 0) AS owner,
        LEAST(CASE WHEN e.timeouts < 3 THEN $1::int
      WHEN e.slow_until IS NOT NULL AND e.slow_until > (extract(epoch FROM statement_timestamp()) * 1000)::bigint THEN 0 ELSE LEAST($2::int, 1) END, CASE WHEN e.rate_limit IS NULL THEN $3::int ELSE CAST(GREATEST(0, ceil(((extract(epoch FROM statement_timestamp()) * 1000)::bigint + 1000 - GREATEST((extract(epoch FROM statement_timestamp()) * 1000)::bigint, COALESCE(e.rate_next_at, (extract(epoch FROM statement_timestamp()) * 1000)::bigint))) * e.rate_limit / 1200.0)) AS integer) END) AS allowance,
        CASE WHEN e.rate_limit IS NULL THEN NULL ELSE GREATEST((extract(epoch FROM statement_timestamp()) * 1000)::bigint, COALESCE(e.rate_next_at, (extract(epoch FROM statement_timestamp()) * 1000)::bigint)) END AS rate_from,
        (1200.0 / e.rate_limit) AS spacing FROM webhook_endpoints e WHERE e.id = ANY(ARRAY(SELECT id FROM pending WHERE id IS NOT NULL)) AND e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL) AND NOT (e.id = ANY($4::bigint[]))
        AND NOT (COALESCE(e.subscriber_id, 0) = ANY($5::bigint[])) AND (e.rate_limit IS NOT NULL OR e.timeouts >= 3)
        AND NOT (e.id = ANY($6::bigint[])) FOR UPDATE SKIP LOCKED),
open AS (
      SELECT id, owner, allowance, rate_from, spacing, id AS held FROM held
      UNION ALL
      SELECT e.id, COALESCE(e.subscriber_id, 0) AS owner,
        LEAST(CASE WHEN e.timeouts < 3 THEN $7::int
      WHEN e.slow_until IS NOT NULL AND e.slow_until > (extract(epoch FROM statement_timestamp()) * 1000)::bigint THEN 0 ELSE LEAST($8::int, 1) END, CASE WHEN e.rate_limit IS NULL THEN $9::int ELSE CAST(GREATEST(0, ceil(((extract(epoch FROM statement_timestamp()) * 1000)::bigint + 1000 - GREATEST((extract(epoch FROM statement_timestamp()) * 1000)::bigint, COALESCE(e.rate_next_at, (extract(epoch FROM statement_timestamp()) * 1000)::bigint))) * e.rate_limit / 1200.0)) AS integer) END) AS allowance,
        CASE WHEN e.rate_limit IS NULL THEN NULL ELSE GREATEST((extract(epoch FROM statement_timestamp()) * 1000)::bigint, COALESCE(e.rate_next_at, (extract(epoch FROM statement_timestamp()) * 1000)::bigint)) END AS rate_from,
        (1200.0 / e.rate_limit) AS spacing, NULL AS held FROM webhook_endpoints e WHERE e.id = ANY(ARRAY(SELECT id FROM pending WHERE id IS NOT NULL)) AND e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL) AND NOT (e.id = ANY($10::bigint[]))
        AND NOT (COALESCE(e.subscriber_id, 0) = ANY($11::bigint[])) AND NOT (e.rate_limit IS NOT NULL OR e.timeouts >= 3)),
candidates AS (
      SELECT due.id, due.endpoint_id, due.next_attempt_at, oe.owner, oe.allowance, oe.rate_from, oe.spacing, oe.held,
        row_number() OVER (PARTITION BY oe.id ORDER BY due.next_attempt_at, due.id) AS place
      FROM open oe CROSS JOIN LATERAL (SELECT x.id, x.endpoint_id, x.next_attempt_at FROM webhook_deliveries x WHERE x.endpoint_id = oe.id AND x.status = 'pending' AND x.next_attempt_at <= (extract(epoch FROM statement_timestamp()) * 1000)::bigint
          AND (x.lease_until IS NULL OR x.lease_until <= (extract(epoch FROM statement_timestamp()) * 1000)::bigint)
          AND NOT (x.id = ANY($12::bigint[])) AND (x.ordering_key IS NULL OR NOT EXISTS (
    SELECT 1 FROM webhook_deliveries o WHERE o.endpoint_id = x.endpoint_id
      AND o.ordering_key = x.ordering_key AND o.status = 'pending' AND o.id < x.id))
          ORDER BY x.next_attempt_at, x.id LIMIT CAST($13::int AS integer)) AS due
      WHERE oe.allowance > 0),
chosen AS (
      SELECT id, endpoint_id, next_attempt_at, place, rate_from, spacing, held FROM (
        SELECT id, endpoint_id, next_attempt_at, place, rate_from, spacing, held,
          row_number() OVER (PARTITION BY owner ORDER BY place, next_attempt_at, id) AS turn
        FROM candidates WHERE place <= allowance) c
      WHERE turn <= $14::int
      ORDER BY turn, place, next_attempt_at, id LIMIT CAST($15::int AS integer)),
locked AS (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.id IN (SELECT id FROM chosen) AND d.status = 'pending'
        AND (d.lease_until IS NULL OR d.lease_until <= (extract(epoch FROM statement_timestamp()) * 1000)::bigint)
      FOR UPDATE SKIP LOCKED),
lease AS (SELECT $16::text AS owner, (extract(epoch FROM statement_timestamp()) * 1000)::bigint + $17::bigint AS until),
w0 AS (INSERT INTO webhook_attempts (delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome)
          SELECT delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome FROM unnest($18::bigint[], $19::int[], $20::text[], $21::bigint[], $22::int[], $23::int[], $24::text[], $25::text[], $26::text[]) WITH ORDINALITY AS a(delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome, n) ORDER BY n RETURNING 1),
w1 AS (UPDATE webhook_deliveries AS d SET
            attempt_count = d.attempt_count + u.attempts, round_attempts = d.round_attempts + u.rounds,
            status = COALESCE(u.status, d.status), next_attempt_at = COALESCE(u.next_attempt_at, d.next_attempt_at),
            last_status = CASE WHEN u.finished = 1 THEN u.last_status ELSE d.last_status END,
            last_error = CASE WHEN u.finished = 1 THEN u.last_error ELSE d.last_error END,
            lease_owner = CASE WHEN u.finished = 1 THEN NULL ELSE d.lease_owner END,
            lease_until = CASE WHEN u.finished = 1 THEN NULL ELSE d.lease_until END,
            updated_at = COALESCE(u.updated_at, d.updated_at)
          FROM unnest($27::bigint[], $28::int[], $29::int[], $30::int[], $31::text[], $32::bigint[], $33::int[], $34::text[], $35::bigint[], $36::text[], $37::text[], $38::bigint[], $39::int[], $40::bigint[]) WITH ORDINALITY AS u(id, attempts, rounds, finished, status, next_attempt_at, last_status, last_error, updated_at, read_status, read_owner, read_until, read_count, read_next, n)
          WHERE d.id = u.id AND d.status = u.read_status AND d.lease_owner IS NOT DISTINCT FROM u.read_owner
            AND d.lease_until IS NOT DISTINCT FROM u.read_until AND d.attempt_count = u.read_count
            AND d.next_attempt_at = u.read_next RETURNING 1),
w2 AS (UPDATE webhook_endpoints AS e SET status = u.status, disabled_reason = u.disabled_reason,
            failing_since = u.failing_since, last_failure_at = u.last_failure_at,
            timeouts = u.timeouts, slow_until = u.slow_until
          FROM unnest($41::bigint[], $42::text[], $43::text[], $44::bigint[], $45::bigint[], $46::int[], $47::bigint[]) WITH ORDINALITY AS u(id, status, disabled_reason, failing_since, last_failure_at, timeouts, slow_until, n) WHERE e.id = u.id RETURNING 1),
claimed AS (UPDATE webhook_deliveries d SET lease_owner = lease.owner, lease_until = lease.until
      FROM locked, lease, webhook_messages m, webhook_endpoints e
      WHERE d.id = locked.id AND m.id = d.message_id AND e.id = d.endpoint_id
      RETURNING d.id, d.message_id, d.endpoint_id, d.webhook_id, d.event_type, d.ordering_key, d.status, d.attempt_count, d.round_attempts, d.next_attempt_at, d.lease_owner, d.lease_until, d.last_status, d.last_error, d.created_at, d.updated_at, m.payload AS m_payload, m.traceparent AS m_traceparent, e.url AS e_url, e.token AS e_token, e.secrets AS e_secrets, e.status AS e_status, e.disabled_reason AS e_disabled_reason, e.failing_since AS e_failing_since, e.last_failure_at AS e_last_failure_at, e.event_types AS e_event_types, e.rate_limit AS e_rate_limit, e.subscriber_id AS e_subscriber_id, e.verified_at AS e_verified_at, e.signature_headers AS e_signature_headers, e.headers AS e_headers, e.filter AS e_filter, e.filtered_count AS e_filtered_count, e.created_at AS e_created_at),
spent AS (UPDATE webhook_endpoints e
      SET rate_next_at = CASE WHEN e.rate_limit IS NULL THEN e.rate_next_at ELSE h.rate_from + c.n * h.spacing END,
        slow_until = CASE WHEN e.timeouts >= 3 THEN lease.until ELSE e.slow_until END
      FROM held h JOIN (SELECT endpoint_id, count(*) AS n FROM claimed GROUP BY endpoint_id) c
        ON c.endpoint_id = h.id, lease
      WHERE e.id = h.id)
              SELECT (SELECT count(*) FROM w0)::int AS w0, (SELECT count(*) FROM w1)::int AS w1, (SELECT count(*) FROM w2)::int AS w2, claimed.id, claimed.message_id, claimed.endpoint_id, claimed.webhook_id, claimed.event_type, claimed.ordering_key, claimed.status, claimed.attempt_count, claimed.round_attempts, claimed.next_attempt_at, claimed.lease_owner, claimed.lease_until, claimed.last_status, claimed.last_error, claimed.created_at, claimed.updated_at, claimed.m_payload, claimed.m_traceparent, claimed.e_url, claimed.e_token, claimed.e_secrets, claimed.e_status, claimed.e_disabled_reason, claimed.e_failing_since, claimed.e_last_failure_at, claimed.e_event_types, claimed.e_rate_limit, claimed.e_subscriber_id, claimed.e_verified_at, claimed.e_signature_headers, claimed.e_headers, claimed.e_filter, claimed.e_filtered_count, claimed.e_created_at, CASE WHEN h.rate_from IS NULL THEN NULL ELSE h.rate_from - (extract(epoch FROM clock_timestamp()) * 1000) + h.spacing * (row_number()
    OVER (PARTITION BY claimed.endpoint_id ORDER BY claimed.next_attempt_at, claimed.id) - 1) END AS start_in_ms
              FROM (SELECT 1) AS one LEFT JOIN claimed ON true
                LEFT JOIN held h ON h.id = claimed.endpoint_id;
