import {
  createWebhookSigner,
  SIGNATURE_HEADER_NAMES,
  type SignatureHeaderStyle,
  type SVIX_ID_HEADER,
  type SVIX_SIGNATURE_HEADER,
  type SVIX_TIMESTAMP_HEADER,
  WEBHOOK_EVENT_TYPE_HEADER,
  type WEBHOOK_ID_HEADER,
  type WEBHOOK_SIGNATURE_HEADER,
  type WEBHOOK_TIMESTAMP_HEADER,
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
  /**
   * The names the id, timestamp and signature go under: `standard` (`webhook-*`, default) or `svix`
   * (`svix-*`, for a receiver that verifies with the `svix` library). The signature is the same.
   */
  signatureHeaders?: SignatureHeaderStyle;
  /**
   * The endpoint's own static headers (an API key for its gateway), sent beside the signed ones. Their
   * names were checked when they were set (`checkStaticHeaders`): none of them can replace a header
   * this function writes.
   */
  headers?: Readonly<Record<string, string>>;
}

export type DeliveryHeaders = Record<
  | typeof WEBHOOK_ID_HEADER
  | typeof WEBHOOK_TIMESTAMP_HEADER
  | typeof WEBHOOK_SIGNATURE_HEADER
  | "content-type",
  string
> & { [WEBHOOK_EVENT_TYPE_HEADER]?: string; authorization?: string };

/** The headers of an attempt signed under Svix's names (`signatureHeaders: "svix"`). */
export type SvixDeliveryHeaders = Record<
  typeof SVIX_ID_HEADER | typeof SVIX_TIMESTAMP_HEADER | typeof SVIX_SIGNATURE_HEADER | "content-type",
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
export function signDelivery(
  input: SignDeliveryInput & { signatureHeaders?: "standard" | undefined },
): DeliveryHeaders;
export function signDelivery(input: SignDeliveryInput & { signatureHeaders: "svix" }): SvixDeliveryHeaders;
export function signDelivery(input: SignDeliveryInput): DeliveryHeaders | SvixDeliveryHeaders;
export function signDelivery(input: SignDeliveryInput): DeliveryHeaders | SvixDeliveryHeaders {
  return createDeliverySigner(input.secrets)(input);
}

/**
 * `signDelivery` for many messages with the same keys: the keys are read once (decoding a key cost
 * about as much as the HMAC itself; the events API signs a whole page with one endpoint's keys).
 */
export function createDeliverySigner(
  secrets: readonly string[],
): (input: Omit<SignDeliveryInput, "secrets">) => DeliveryHeaders | SvixDeliveryHeaders {
  const sign = signerFor(secrets);
  return (input) => {
    const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
    const names = SIGNATURE_HEADER_NAMES[input.signatureHeaders ?? "standard"];
    // The static headers first: the ones written after them are the delivery's own.
    const headers: Record<string, string> = { ...input.headers };
    headers["content-type"] = "application/json";
    headers[names.id] = input.webhookId;
    headers[names.timestamp] = String(timestamp);
    headers[names.signature] = sign({ id: input.webhookId, timestamp, body: input.body });
    if (input.token !== undefined) headers.authorization = `Bearer ${input.token}`;
    // Not signed, and not one of Svix's: kept under its own name in both styles, so a receiver built on
    // this package tells the verification handshake from a delivery whichever names the signature has.
    if (input.eventType) headers[WEBHOOK_EVENT_TYPE_HEADER] = input.eventType;
    return headers as DeliveryHeaders | SvixDeliveryHeaders;
  };
}
