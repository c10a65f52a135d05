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

type Signer = ReturnType<typeof createWebhookSigner>;

/**
 * Signers made for a secrets list, kept while the list lives: the deliveries of one claim share their
 * endpoint's list, and a signer made once skips parsing and importing each key again (about 10 µs of
 * the 12-20 a signature cost when made per call). The keys it was made from are kept beside it and
 * compared (by reference, so almost free), so a list changed in place gets a new signer.
 */
const signers = new WeakMap<readonly string[], { keys: readonly string[]; sign: Signer }>();

function signerFor(secrets: readonly string[]): Signer {
  const known = signers.get(secrets);
  if (known && known.keys.length === secrets.length && known.keys.every((key, i) => key === secrets[i]))
    return known.sign;
  const sign = createWebhookSigner(secrets);
  signers.set(secrets, { keys: [...secrets], sign });
  return sign;
}

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
  const sign = signerFor(secrets);
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
