/**
 * Moving a 0.1 outbox (tables `plants`, `endpoints`, `deliveries`, `attempts`) over, the same on both
 * databases: every row copied into the `webhook_` tables under its own id. `plants` rows become messages
 * with the same ids and bodies; `plants` itself is left to the application that owns it.
 */
export const LEGACY_OUTBOX_COPY = [
  `INSERT INTO webhook_messages (id, webhook_id, payload, created_at)
  SELECT id, webhook_id, body, created_at FROM plants`,
  `INSERT INTO webhook_endpoints (id, url, token, secrets, status, disabled_reason, failing_since, last_failure_at, created_at)
  SELECT id, url, token, secrets, status, disabled_reason, failing_since, last_failure_at, created_at FROM endpoints`,
  `INSERT INTO webhook_deliveries (id, message_id, endpoint_id, webhook_id, status, attempt_count, round_attempts,
    next_attempt_at, lease_owner, lease_until, last_status, last_error, created_at, updated_at)
  SELECT id, plant_id, endpoint_id, webhook_id, status, attempt_count, round_attempts,
    next_attempt_at, lease_owner, lease_until, last_status, last_error, created_at, updated_at FROM deliveries`,
  `INSERT INTO webhook_attempts (id, delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome)
  SELECT id, delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome FROM attempts`,
  // Dropped once copied: they belonged to the queue alone.
  "DROP TABLE attempts",
  "DROP TABLE deliveries",
  "DROP TABLE endpoints",
];
