import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto";
import { WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from "@plant-store/types";
import { InvalidSignatureError } from "./errors/invalid-signature-error.js";
import { InvalidWebhookHeadersError } from "./errors/invalid-webhook-headers-error.js";
import { TimestampOutOfToleranceError } from "./errors/timestamp-out-of-tolerance-error.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";
import { webhookHeaderChecks } from "./webhook-header-checks.js";

export interface SignedDelivery {
  webhookId: string;
  /** Seconds since the epoch, as signed. */
  timestamp: number;
}

export interface SignatureCheckerOptions {
  /** Decoded secret keys (several during rotation). */
  keys: readonly Buffer[];
  toleranceSeconds: number;
  /** The clock, for tests. Default: `Date.now()`. */
  now?: (() => Date) | undefined;
}

/**
 * `v1,` and the one spelling of a 32-byte HMAC-SHA256 in base64: 43 characters and `=`. 32 bytes
 * fill 256 of the 258 bits of 43 characters, so the last character carries two zero bits and is
 * one of the 16 whose index in the alphabet is a multiple of 4.
 */
const CANONICAL_SHA256_BASE64 = /^v1,[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

function requireHeader(headers: IncomingHeaders, name: string, valid: (value: string) => boolean): string {
  const value = headerValue(headers, name);
  if (value === undefined) throw new InvalidWebhookHeadersError(name, "missing");
  if (value === "duplicate" || !valid(value)) throw new InvalidWebhookHeadersError(name, "malformed");
  return value;
}

/**
 * Standard Webhooks v1 verification over the raw bytes. The signature is checked before the
 * timestamp so that an unsigned request learns nothing about our clock; both give 401.
 */
export function createSignatureChecker(
  options: SignatureCheckerOptions,
): (rawBody: Buffer, headers: IncomingHeaders) => SignedDelivery {
  // Key objects made once: given a Buffer, createHmac would import the key again on every call.
  const keys = options.keys.map((key) => createSecretKey(key));
  const { now } = options;
  return (rawBody, headers) => {
    const webhookId = requireHeader(headers, WEBHOOK_ID_HEADER, webhookHeaderChecks.id);
    const timestampText = requireHeader(headers, WEBHOOK_TIMESTAMP_HEADER, webhookHeaderChecks.timestamp);
    const signatureHeader = requireHeader(headers, WEBHOOK_SIGNATURE_HEADER, webhookHeaderChecks.signature);

    const candidates: Buffer[] = [];
    for (const part of signatureHeader.split(" ")) {
      // Other versions (e.g. future asymmetric `v1a`) are ignored, as the spec says. A `v1` value
      // that is not the canonical base64 of 32 bytes can never be one we made, and Buffer.from
      // would forgive it (stray characters, missing padding, base64url, non-zero padding bits).
      if (!part.startsWith("v1,") || !CANONICAL_SHA256_BASE64.test(part)) continue;
      candidates.push(Buffer.from(part.slice(3), "base64"));
    }
    let matched = false;
    for (const key of keys) {
      const expected = createHmac("sha256", key)
        .update(`${webhookId}.${timestampText}.`)
        .update(rawBody)
        .digest();
      for (const candidate of candidates) {
        if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
      }
    }
    if (!matched) throw new InvalidSignatureError();

    const timestamp = Number(timestampText);
    const nowSeconds = Math.floor((now === undefined ? Date.now() : now().getTime()) / 1000);
    if (timestamp < nowSeconds - options.toleranceSeconds) {
      throw new TimestampOutOfToleranceError("old", options.toleranceSeconds);
    }
    if (timestamp > nowSeconds + options.toleranceSeconds) {
      throw new TimestampOutOfToleranceError("new", options.toleranceSeconds);
    }
    return { webhookId, timestamp };
  };
}
