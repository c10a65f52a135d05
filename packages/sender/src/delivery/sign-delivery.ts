import {
  createWebhookSigner,
  WEBHOOK_EVENT_TYPE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from "@plant-store/types";

export interface SignDeliveryInput {
  webhookId: string;
  /** Unix seconds; default now. Every attempt signs afresh, so this is the attempt's own time. */
  timestamp?: number;
  body: string;
  /** The endpoint's keys: `whsec_` secrets sign `v1,`, `whsk_` ed25519 keys sign `v1a,` (one signature each). */
  secrets: readonly string[];
  /** The endpoint's bearer token, sent as `Authorization`; none is sent without one. */
  token?: string | undefined;
  /** The message's event type, sent as `webhook-event-type` (nothing is sent for a message without one). */
  eventType?: string | null;
}

export type DeliveryHeaders = Record<
  | typeof WEBHOOK_ID_HEADER
  | typeof WEBHOOK_TIMESTAMP_HEADER
  | typeof WEBHOOK_SIGNATURE_HEADER
  | "content-type",
  string
> & { [WEBHOOK_EVENT_TYPE_HEADER]?: string; authorization?: string };

/**
 * The headers of one attempt: Standard Webhooks signatures (v1 for `whsec_`, v1a for `whsk_`, from
 * `@plant-store/types`' one signing core) plus the endpoint's bearer token, where it has one. Throws
 * `InvalidSignInputError` for an id, timestamp or key it must not sign.
 */
export function signDelivery(input: SignDeliveryInput): DeliveryHeaders {
  return createDeliverySigner(input.secrets)(input);
}

/**
 * `signDelivery` for many messages with the same keys: the keys are read once (decoding a key cost
 * about as much as the HMAC itself; the events API signs a whole page with one endpoint's keys).
 */
export function createDeliverySigner(
  secrets: readonly string[],
): (input: Omit<SignDeliveryInput, "secrets">) => DeliveryHeaders {
  const sign = createWebhookSigner(secrets);
  return (input) => {
    const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
    const headers: DeliveryHeaders = {
      "content-type": "application/json",
      [WEBHOOK_ID_HEADER]: input.webhookId,
      [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
      [WEBHOOK_SIGNATURE_HEADER]: sign({ id: input.webhookId, timestamp, body: input.body }),
    };
    if (input.token !== undefined) headers.authorization = `Bearer ${input.token}`;
    if (input.eventType) headers[WEBHOOK_EVENT_TYPE_HEADER] = input.eventType;
    return headers;
  };
}
