import {
  SVIX_ID_HEADER,
  SVIX_SIGNATURE_HEADER,
  SVIX_TIMESTAMP_HEADER,
  TRACEPARENT_HEADER,
  WEBHOOK_EVENT_TYPE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from "@plant-store/types";

/** The headers the receive path reads; adapters pick only these out of a request. */
export const RECEIVED_HEADERS = [
  "authorization",
  "content-type",
  "content-length",
  "transfer-encoding",
  WEBHOOK_ID_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  // The same three under Svix's names, read when a request has no `webhook-signature`.
  SVIX_ID_HEADER,
  SVIX_TIMESTAMP_HEADER,
  SVIX_SIGNATURE_HEADER,
  TRACEPARENT_HEADER,
  WEBHOOK_EVENT_TYPE_HEADER,
] as const;
