-- keep each statement's plan for the transaction

SELECT id, message_id, endpoint_id, webhook_id, event_type, status, lease_owner, lease_until, attempt_count, round_attempts, next_attempt_at, ? AS now_ms, (SELECT e.failing_since FROM webhook_endpoints e
                WHERE e.id = webhook_deliveries.endpoint_id) AS endpoint_failing_since FROM webhook_deliveries
              WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id;

SELECT * FROM webhook_endpoints WHERE id = ? ORDER BY id;

INSERT INTO webhook_attempts (delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome)
          SELECT delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome FROM (SELECT column1 AS delivery_id, column2 AS attempt, column3 AS worker_id, column4 AS started_at, column5 AS duration_ms, column6 AS status, column7 AS error, column8 AS response_body, column9 AS outcome, column10 AS n FROM (VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)) WHERE column10 IS NOT NULL) AS a ORDER BY n;

UPDATE webhook_deliveries AS d SET
            attempt_count = d.attempt_count + u.attempts, round_attempts = d.round_attempts + u.rounds,
            status = COALESCE(u.status, d.status), next_attempt_at = COALESCE(u.next_attempt_at, d.next_attempt_at),
            last_status = CASE WHEN u.finished = 1 THEN u.last_status ELSE d.last_status END,
            last_error = CASE WHEN u.finished = 1 THEN u.last_error ELSE d.last_error END,
            lease_owner = CASE WHEN u.finished = 1 THEN NULL ELSE d.lease_owner END,
            lease_until = CASE WHEN u.finished = 1 THEN NULL ELSE d.lease_until END,
            updated_at = COALESCE(u.updated_at, d.updated_at)
          FROM (SELECT column1 AS id, column2 AS attempts, column3 AS rounds, column4 AS finished, column5 AS status, column6 AS next_attempt_at, column7 AS last_status, column8 AS last_error, column9 AS updated_at, column10 AS read_status, column11 AS read_owner, column12 AS read_until, column13 AS read_count, column14 AS read_next, column15 AS n FROM (VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)) WHERE column15 IS NOT NULL) AS u
          WHERE d.id = u.id AND d.status = u.read_status AND d.lease_owner IS NOT DISTINCT FROM u.read_owner
            AND d.lease_until IS NOT DISTINCT FROM u.read_until AND d.attempt_count = u.read_count
            AND d.next_attempt_at = u.read_next;

UPDATE webhook_endpoints AS e SET status = u.status, disabled_reason = u.disabled_reason,
            failing_since = u.failing_since, last_failure_at = u.last_failure_at,
            timeouts = u.timeouts, slow_until = u.slow_until
          FROM (SELECT column1 AS id, column2 AS status, column3 AS disabled_reason, column4 AS failing_since, column5 AS last_failure_at, column6 AS timeouts, column7 AS slow_until, column8 AS n FROM (VALUES (?, ?, ?, ?, ?, ?, ?, ?)) WHERE column8 IS NOT NULL) AS u WHERE e.id = u.id;

WITH RECURSIVE pending (id) AS (
      SELECT (SELECT d.endpoint_id FROM webhook_deliveries d INDEXED BY webhook_deliveries_pending_due
        WHERE d.status = 'pending' ORDER BY d.endpoint_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.endpoint_id FROM webhook_deliveries d INDEXED BY webhook_deliveries_pending_due
        WHERE d.status = 'pending' AND d.endpoint_id > p.id ORDER BY d.endpoint_id LIMIT 1) FROM pending p WHERE p.id IS NOT NULL),
held AS (
      SELECT e.id, COALESCE(e.subscriber_id, 0) AS owner,
        min(CASE WHEN e.timeouts < 3 THEN ?
      WHEN e.slow_until IS NOT NULL AND e.slow_until > ? THEN 0 ELSE min(?, 1) END, CASE WHEN e.rate_limit IS NULL THEN ? ELSE CAST(max(0, ceil((? + 1000 - max(?, COALESCE(e.rate_next_at, ?))) * e.rate_limit / 1200.0)) AS integer) END) AS allowance,
        CASE WHEN e.rate_limit IS NULL THEN NULL ELSE max(?, COALESCE(e.rate_next_at, ?)) END AS rate_from,
        (1200.0 / e.rate_limit) AS spacing FROM pending CROSS JOIN webhook_endpoints e WHERE e.id = pending.id AND e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL) AND NOT (e.id IN (SELECT value FROM json_each(?)))
        AND NOT (COALESCE(e.subscriber_id, 0) IN (SELECT value FROM json_each(?))) AND (e.rate_limit IS NOT NULL OR e.timeouts >= 3)
        AND NOT (e.id IN (SELECT value FROM json_each(?)))),
open AS (
      SELECT id, owner, allowance, rate_from, spacing, id AS held FROM held
      UNION ALL
      SELECT e.id, COALESCE(e.subscriber_id, 0) AS owner,
        min(CASE WHEN e.timeouts < 3 THEN ?
      WHEN e.slow_until IS NOT NULL AND e.slow_until > ? THEN 0 ELSE min(?, 1) END, CASE WHEN e.rate_limit IS NULL THEN ? ELSE CAST(max(0, ceil((? + 1000 - max(?, COALESCE(e.rate_next_at, ?))) * e.rate_limit / 1200.0)) AS integer) END) AS allowance,
        CASE WHEN e.rate_limit IS NULL THEN NULL ELSE max(?, COALESCE(e.rate_next_at, ?)) END AS rate_from,
        (1200.0 / e.rate_limit) AS spacing, NULL AS held FROM pending CROSS JOIN webhook_endpoints e WHERE e.id = pending.id AND e.status = 'active' AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL) AND NOT (e.id IN (SELECT value FROM json_each(?)))
        AND NOT (COALESCE(e.subscriber_id, 0) IN (SELECT value FROM json_each(?))) AND NOT (e.rate_limit IS NOT NULL OR e.timeouts >= 3)),
candidates AS (
      SELECT due.id, due.endpoint_id, due.next_attempt_at, oe.owner, oe.allowance, oe.rate_from, oe.spacing, oe.held,
        row_number() OVER (PARTITION BY oe.id ORDER BY due.next_attempt_at, due.id) AS place
      FROM open oe CROSS JOIN webhook_deliveries AS due ON due.id IN (SELECT x.id FROM webhook_deliveries x WHERE x.endpoint_id = oe.id AND x.status = 'pending' AND x.next_attempt_at <= ?
          AND (x.lease_until IS NULL OR x.lease_until <= ?)
          AND NOT (x.id IN (SELECT value FROM json_each(?))) AND (x.ordering_key IS NULL OR NOT EXISTS (
    SELECT 1 FROM webhook_deliveries o WHERE o.endpoint_id = x.endpoint_id
      AND o.ordering_key = x.ordering_key AND o.status = 'pending' AND o.id < x.id))
          ORDER BY x.next_attempt_at, x.id LIMIT CAST(? AS integer))
      WHERE oe.allowance > 0),
chosen AS (
      SELECT id, endpoint_id, next_attempt_at, place, rate_from, spacing, held FROM (
        SELECT id, endpoint_id, next_attempt_at, place, rate_from, spacing, held,
          row_number() OVER (PARTITION BY owner ORDER BY place, next_attempt_at, id) AS turn
        FROM candidates WHERE place <= allowance) c
      WHERE turn <= ?
      ORDER BY turn, place, next_attempt_at, id LIMIT CAST(? AS integer))
          SELECT c.id, CASE WHEN c.rate_from IS NULL THEN NULL ELSE c.rate_from - ? + c.spacing * (c.place - 1) END AS start_in_ms, c.held FROM chosen c;

UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? + ?
          WHERE id IN (SELECT value FROM json_each(?));

UPDATE webhook_endpoints AS e SET rate_next_at = CASE WHEN e.rate_limit IS NULL THEN e.rate_next_at ELSE max(?, COALESCE(e.rate_next_at, ?)) + c.n * (1200.0 / e.rate_limit) END,
        slow_until = CASE WHEN e.timeouts >= 3 THEN ? + ? ELSE e.slow_until END
          FROM (SELECT endpoint_id, count(*) AS n FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?))
            GROUP BY endpoint_id) c
          WHERE e.id = c.endpoint_id AND (e.rate_limit IS NOT NULL OR e.timeouts >= 3);

SELECT d.id, d.message_id, d.endpoint_id, d.webhook_id, d.event_type, d.ordering_key, d.status, d.attempt_count, d.round_attempts, d.next_attempt_at, d.lease_owner, d.lease_until, d.last_status, d.last_error, d.created_at, d.updated_at, m.payload AS m_payload, m.traceparent AS m_traceparent, e.url AS e_url, e.token AS e_token, e.secrets AS e_secrets, e.status AS e_status, e.disabled_reason AS e_disabled_reason, e.failing_since AS e_failing_since, e.last_failure_at AS e_last_failure_at, e.event_types AS e_event_types, e.rate_limit AS e_rate_limit, e.subscriber_id AS e_subscriber_id, e.verified_at AS e_verified_at, e.signature_headers AS e_signature_headers, e.headers AS e_headers, e.filter AS e_filter, e.filtered_count AS e_filtered_count, e.created_at AS e_created_at FROM webhook_deliveries d
          JOIN webhook_messages m ON m.id = d.message_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.id IN (SELECT value FROM json_each(?));
