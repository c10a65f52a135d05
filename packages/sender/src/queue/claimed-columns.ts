import { raw } from "./sql.js";

/** A claimed delivery's columns with its message's and endpoint's beside it (`ClaimedRow`), as both dialects select them. */
export const CLAIMED_COLUMNS =
  raw(`d.*, m.payload AS m_payload, m.traceparent AS m_traceparent, e.url AS e_url,
  e.token AS e_token, e.secrets AS e_secrets, e.status AS e_status, e.disabled_reason AS e_disabled_reason,
  e.failing_since AS e_failing_since, e.last_failure_at AS e_last_failure_at, e.event_types AS e_event_types, e.rate_limit AS e_rate_limit,
  e.subscriber_id AS e_subscriber_id, e.verified_at AS e_verified_at, e.created_at AS e_created_at`);
