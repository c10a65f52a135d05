/**
 * Limits of the New Plant contract. Each one is written in `@plant-store/spec`'s openapi.json
 * and enforced with exactly these numbers at runtime, by the receiver and the sender alike.
 */

/** Largest request body a receiver accepts, in bytes (1 MiB). Larger bodies get 413. */
export const MAX_BODY_BYTES = 1_048_576;

/** How far `webhook-timestamp` may be from the receiver's clock, either way (Standard Webhooks' 5 minutes). */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

/** Longest accepted `webhook-id`. */
export const MAX_WEBHOOK_ID_LENGTH = 256;

/** Longest accepted `webhook-signature` header (room for many rotated secrets). */
export const MAX_SIGNATURE_HEADER_LENGTH = 4096;

/**
 * Longest plant `name`, in characters (Unicode code points, as JSON Schema counts). What the Plant Store
 * has always allowed; without a limit a receiver stored names of 1 MiB, and listing 1,000 of them took
 * a gigabyte.
 */
export const MAX_PLANT_NAME_LENGTH = 200;

/** Longest plant `tag`, in characters (Unicode code points). What the Plant Store has always allowed. */
export const MAX_PLANT_TAG_LENGTH = 100;

/** How long the Plant Store waits for a receiver's answer per attempt. */
export const DELIVERY_TIMEOUT_MS = 15_000;

/**
 * Fewest key bytes a `whsec_` signing secret may decode to. Standard Webhooks recommends 24 to 64;
 * below 16 an HMAC key is too easy to guess.
 */
export const MIN_SECRET_BYTES = 16;

/**
 * How long the Plant Store waits for an endpoint's answer to a verification request: shorter than a
 * delivery's, because someone is usually waiting for it (the subscriber who just added the URL).
 */
export const VERIFICATION_TIMEOUT_MS = 10_000;

/** Shortest challenge of a verification request (the store sends 43 characters: 32 bytes in base64url). */
export const MIN_VERIFICATION_CHALLENGE_LENGTH = 16;

/** Longest challenge of a verification request: a receiver echoes nothing longer. */
export const MAX_VERIFICATION_CHALLENGE_LENGTH = 256;
