import { DELIVERY_STATUSES, MAX_IDEMPOTENCY_KEY_LENGTH } from "@plant-store/sender";
import {
  BearerTokenSchema,
  MAX_PLANT_NAME_LENGTH,
  MAX_PLANT_TAG_LENGTH,
  WebhookSecretSchema,
} from "@plant-store/types";
import { z } from "zod";

// The contract's limits: a plant the store takes is one every receiver takes.
export const AddPlantInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(MAX_PLANT_NAME_LENGTH),
  tag: z.string().trim().min(1).max(MAX_PLANT_TAG_LENGTH).optional(),
});

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

export const AddEndpointInputSchema = z.strictObject({
  url: EndpointUrlSchema,
  token: EndpointTokenSchema,
  /** One secret, or several during rotation; generated when absent. */
  secret: WebhookSecretSchema.optional(),
  secrets: z.array(WebhookSecretSchema).min(1).max(10).optional(),
});

/** Rotation: a new bearer token, a new list of signing secrets (replacing the old list), or both. */
export const UpdateEndpointInputSchema = z
  .strictObject({
    token: EndpointTokenSchema.optional(),
    secrets: z.array(WebhookSecretSchema).min(1).max(10).optional(),
  })
  .refine((input) => input.token !== undefined || input.secrets !== undefined, {
    message: "give token, secrets or both",
  });

export const ReplayInputSchema = z.strictObject({
  endpointId: z.coerce.number().int().min(1),
  since: z.iso.datetime({ offset: true }),
});

// Strict like every other input: a misspelt filter (`?state=failed`) is a 400, not a silently unfiltered list.
export const ListDeliveriesQuerySchema = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional(),
  endpointId: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const IdSchema = z.coerce.number().int().min(1);
