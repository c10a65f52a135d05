import { OPERATIONAL_EVENT_TYPES } from "@plant-store/types";
import { raw } from "./sql.js";

/**
 * Whether endpoint `e` may be sent anything: the operator's endpoints always, a subscriber's once its
 * owner proved it wants these webhooks (a URL nobody verified must never receive signed POSTs: issue
 * 25). The one rule the fan-out, the replay and both databases' claims share, beside `e.status`.
 */
export const ENDPOINT_RECEIVES = raw("(e.subscriber_id IS NULL OR e.verified_at IS NOT NULL)");

/** The operational event types as an SQL list: constants of the code, never input. */
const OPERATIONAL_LIST = `(${OPERATIONAL_EVENT_TYPES.map((type) => `'${type}'`).join(", ")})`;

const NOT_OPERATIONAL = `(m.event_type IS NULL OR m.event_type NOT IN ${OPERATIONAL_LIST})`;

/**
 * Whether message `m` is for endpoint `e`, beside the subscription test: a message addressed to the
 * endpoint's own subscriber, or one to everyone. The outbox's operational webhooks (`endpoint.failing`
 * ...) follow two more rules here, so both databases' fan-out and the replay apply them alike:
 * - addressed to no subscriber, one is the operator's: it reaches the operator's endpoints only (a
 *   subscriber must not learn of the operator's endpoints); a subscriber's endpoint's alerts are
 *   addressed to that subscriber;
 * - it is opt-in: an endpoint without a list (every type) never gets one, so no plant receiver is sent
 *   what it cannot parse; its list must match it (`endpoint.*`, `endpoint.failing`).
 */
export const ADDRESSED_TO_ENDPOINT = raw(
  `(((m.subscriber_id IS NULL AND (e.subscriber_id IS NULL OR ${NOT_OPERATIONAL})) OR m.subscriber_id = e.subscriber_id) AND (e.event_types IS NOT NULL OR ${NOT_OPERATIONAL}))`,
);
