import { raw } from "./sql.js";

/**
 * A claimed delivery's columns with its message's and endpoint's beside it (`ClaimedRow`), as both dialects
 * select them. Named, not `d.*`: PostgreSQL keeps the claim prepared, and a prepared statement whose result
 * gains a column (another process migrating the schema) fails until its connection closes.
 */
export const CLAIMED_COLUMNS =
  raw(`d.id, d.message_id, d.endpoint_id, d.webhook_id, d.event_type, d.ordering_key, d.status, d.attempt_count,
  d.round_attempts, d.next_attempt_at, d.lease_owner, d.lease_until, d.last_status, d.last_error, d.created_at,
  d.updated_at, m.payload AS m_payload, m.traceparent AS m_traceparent, e.url AS e_url,
  e.token AS e_token, e.secrets AS e_secrets, e.status AS e_status, e.disabled_reason AS e_disabled_reason,
  e.failing_since AS e_failing_since, e.last_failure_at AS e_last_failure_at, e.event_types AS e_event_types, e.rate_limit AS e_rate_limit,
  e.subscriber_id AS e_subscriber_id, e.verified_at AS e_verified_at, e.created_at AS e_created_at`);
