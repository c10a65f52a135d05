import { raw } from "./sql.js";

/**
 * Whether endpoint `e` may be sent anything: the operator's endpoints always, a subscriber's once its
 * owner proved it wants these webhooks (a URL nobody verified must never receive signed POSTs: issue
 * 25). The one rule the fan-out, the replay and both databases' claims share, beside `e.status`.
 */
export const ENDPOINT_RECEIVES = raw("(e.subscriber_id IS NULL OR e.verified_at IS NOT NULL)");

/**
 * Whether message `m` is for endpoint `e`: a message to everyone, or one addressed to the endpoint's
 * own subscriber (never to the operator's endpoints nor another subscriber's).
 */
export const ADDRESSED_TO_ENDPOINT = raw("(m.subscriber_id IS NULL OR m.subscriber_id = e.subscriber_id)");
