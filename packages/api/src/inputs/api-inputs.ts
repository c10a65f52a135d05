import {
  DELIVERY_STATUSES,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_RATE_LIMIT,
  OPERATIONAL_EVENT_TYPES,
} from "@plant-store/sender";
import {
  BearerTokenSchema,
  EndpointFilterSchema,
  EndpointHeadersSchema,
  SignatureHeaderStyleSchema,
  WebhookSecretSchema,
} from "@plant-store/types";
import { z } from "zod";

/** An `Idempotency-Key`: what a header can carry, within what the queue keeps. */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(MAX_IDEMPOTENCY_KEY_LENGTH)
  .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces");

/**
 * A receiver URL. Credentials in it (`http://user:pw@host/`) are refused: they would be stored and shown
 * back by every listing, and got would send them as `Authorization: Basic ...` instead of the bearer
 * token. The message never repeats the URL.
 */
export const EndpointUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .refine(
    (url) => {
      // Also runs when the url check above failed: an unparsable URL is that check's issue, not this one's.
      if (!URL.canParse(url)) return true;
      const { username, password } = new URL(url);
      return username === "" && password === "";
    },
    { message: "must not contain credentials (user:password@): the bearer token is sent as --token / token" },
  )
  // Port 0 can never be connected to: refused when it is set, not found out at every attempt. Every
  // other port stays allowed (see the README's Security section for why the guard checks addresses).
  .refine((url) => !URL.canParse(url) || new URL(url).port !== "0", { message: "must not use port 0" });

/**
 * The bearer token sent to an endpoint: the receiver's rule (visible ASCII), so a token that could never
 * be sent (CR/LF, NUL: `ERR_INVALID_CHAR` on every attempt) or never accepted (a space, non-ASCII) is
 * refused when it is set, not discovered at the first delivery.
 */
export const EndpointTokenSchema = BearerTokenSchema.max(4096);

/**
 * An id as a path, a query or a flag carries it: decimal digits only. `Number()` (what `z.coerce` does)
 * also reads `0x1`, ` 1`, `1e0` and `1.0` as 1, so the audit's odd spellings acted on object 1.
 */
export const IdSchema = z
  .string()
  .regex(/^0*[1-9][0-9]{0,15}$/, "must be decimal digits, 1 or more")
  .transform(Number)
  .refine(Number.isSafeInteger, "must be decimal digits, 1 or more");

/**
 * An endpoint's CEL filter: its length here; its syntax, functions, loops and (where the endpoint names
 * event types) its comparisons are the queue's to check, whose refusal names the problem and its line and
 * column (a 400 too). Null: no filter.
 */
export const EndpointFilterInputSchema = EndpointFilterSchema.nullable();

/**
 * Static headers sent with every attempt and the handshake: the sender's rules (`EndpointHeadersSchema`),
 * whose problems name the header, never its value (the values are secrets).
 */
export const EndpointHeadersInputSchema = EndpointHeadersSchema;

export const ReplayInputSchema = z.strictObject({
  // A JSON number, or its decimal digits as a string (what the CLI's flag and older clients send).
  endpointId: z.union([z.number().int().min(1).max(Number.MAX_SAFE_INTEGER), IdSchema]),
  since: z.iso.datetime({ offset: true }),
});

/** `POST /subscribers`: a name the operator recognises (the queue refuses control characters too). */
export const AddSubscriberInputSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters"),
});

/** `POST /subscribers/{id}/portal-links`: how long the link opens the portal; 1 hour unless asked. */
export const PortalLinkInputSchema = z.strictObject({
  expiresInSeconds: z
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 60 * 60)
    .default(60 * 60),
});

/** `POST /messages`: one message, fanned out to every endpoint subscribed to its event type. */
export const SendMessageInputSchema = z.strictObject({
  eventType: z
    .string()
    .regex(
      /^[A-Za-z0-9_.:/-]{1,200}$/,
      "must be 1 to 200 letters, digits or _ . : / - (an operationId, say)",
    ),
  payload: z.record(z.string(), z.unknown(), { error: "must be a JSON object" }),
  idempotencyKey: IdempotencyKeySchema.optional(),
  orderingKey: IdempotencyKeySchema.optional(),
  /** Addressed to one subscriber's endpoints only. */
  subscriberId: z.number().int().positive().optional(),
});

/** Deliveries a second at most, across every worker; null: no limit. */
export const RateLimitSchema = z.number().int().min(1).max(MAX_RATE_LIMIT).nullable();

/** An event type's characters, as the sender takes them (a trailing `*` in a subscription: a prefix). */
const EVENT_TYPE_TEXT = /^[A-Za-z0-9_.:/-]{1,200}$/;

/**
 * The inputs that name event types, checked against a catalog: the embedder's event types and the
 * outbox's operational ones (alerts), which an endpoint may list too. Without a catalog, any event type
 * spelt as the sender takes them.
 */
export function endpointInputs(catalog?: readonly string[]) {
  const STORE_EVENT_TYPES: readonly string[] | undefined =
    catalog === undefined ? undefined : [...catalog, ...OPERATIONAL_EVENT_TYPES];
  const storeEventTypes = STORE_EVENT_TYPES?.join(", ") ?? "";
  /** An entry of a subscription names one of the store's webhooks, or is a prefix (`new*`) of one. */
  const matchesStoreWebhook = (entry: string) =>
    STORE_EVENT_TYPES === undefined
      ? EVENT_TYPE_TEXT.test(entry.endsWith("*") ? entry.slice(0, -1) || "x" : entry)
      : entry.endsWith("*")
        ? STORE_EVENT_TYPES.some((type) => type.startsWith(entry.slice(0, -1)))
        : STORE_EVENT_TYPES.includes(entry);
  const isStoreEventType = (type: string) =>
    STORE_EVENT_TYPES === undefined ? EVENT_TYPE_TEXT.test(type) : STORE_EVENT_TYPES.includes(type);
  const problem =
    STORE_EVENT_TYPES === undefined
      ? "is not an event type (letters, digits and _ . : / - only"
      : `matches none of this API's event types (${storeEventTypes}`;

  /**
   * An endpoint's subscriptions: the store's event types it receives (a trailing `*` matches a prefix), or
   * null for every one. Checked against the store's catalog here, so a typo is a 400 naming the entry's
   * place, not an endpoint that silently receives nothing (the queue refuses it too, as a last guard).
   * At most 100 entries, the queue's own limit.
   */
  const EventTypesSchema = z
    .array(
      z
        .string()
        .max(201)
        .refine(matchesStoreWebhook, {
          message: `${problem}; a trailing * matches a prefix)`,
        }),
    )
    .min(1, "list at least one event type, or null for every one")
    .max(100)
    .nullable();

  /** One of the store's event types, exactly (a filter of the deliveries list). */
  const EventTypeSchema = z.string().refine(isStoreEventType, {
    message:
      STORE_EVENT_TYPES === undefined
        ? "must be an event type (letters, digits and _ . : / - only)"
        : `must be one of this API's event types (${storeEventTypes})`,
  });

  const AddEndpointInputSchema = z.strictObject({
    url: EndpointUrlSchema,
    token: EndpointTokenSchema,
    /** One secret, or several during rotation; generated when absent. */
    secret: WebhookSecretSchema.optional(),
    secrets: z.array(WebhookSecretSchema).min(1).max(10).optional(),
    /** Absent or null: every event type. */
    eventTypes: EventTypesSchema.optional(),
    /** Absent or null: no limit. */
    rateLimit: RateLimitSchema.optional(),
    /** Absent: `standard` (`webhook-*`); `svix`: the same signature under `svix-*`. */
    signatureHeaders: SignatureHeaderStyleSchema.optional(),
    /** Absent: none. */
    headers: EndpointHeadersInputSchema.optional(),
    /** Absent or null: every message it subscribes to. */
    filter: EndpointFilterInputSchema.optional(),
  });

  /**
   * Rotation, subscriptions and moving: a new bearer token, a new list of signing secrets (replacing the
   * old list), new event types (null: every one again), a new URL (checked as a new endpoint's is), or
   * several of them at once.
   */
  const UpdateEndpointInputSchema = z
    .strictObject({
      url: EndpointUrlSchema.optional(),
      token: EndpointTokenSchema.optional(),
      secrets: z.array(WebhookSecretSchema).min(1).max(10).optional(),
      eventTypes: EventTypesSchema.optional(),
      rateLimit: RateLimitSchema.optional(),
      signatureHeaders: SignatureHeaderStyleSchema.optional(),
      /** Replaces all of them (`{}`: none). */
      headers: EndpointHeadersInputSchema.optional(),
      /** Null: none from the next message on. */
      filter: EndpointFilterInputSchema.optional(),
    })
    .refine((input) => Object.values(input).some((value) => value !== undefined), {
      message:
        "give url, token, secrets, eventTypes, rateLimit, signatureHeaders, headers, filter or several of them",
    });

  // Strict like every other input: a misspelt filter (`?state=failed`) is a 400, not a silently unfiltered list.
  const ListDeliveriesQuerySchema = z.strictObject({
    status: z.enum(DELIVERY_STATUSES).optional(),
    eventType: EventTypeSchema.optional(),
    endpointId: IdSchema.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  });
  return {
    EventTypesSchema,
    EventTypeSchema,
    AddEndpointInputSchema,
    UpdateEndpointInputSchema,
    ListDeliveriesQuerySchema,
  };
}

/** The inputs checked against no catalog (any event type the sender takes). */
export type EndpointInputs = ReturnType<typeof endpointInputs>;
