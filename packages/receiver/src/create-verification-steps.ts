import {
  BearerTokenSchema,
  createWebhookVerifier,
  type Delivery,
  MAX_BODY_BYTES,
  parseWebhookKey,
  SIGNATURE_HEADER_NAMES,
  type SignedWebhook,
  TIMESTAMP_TOLERANCE_SECONDS,
  WEBHOOK_SIGNATURE_HEADER,
  WebhookVerificationError,
} from "@plant-store/types";
import { checkContentType } from "./check-content-type.js";
import { createTokenChecker } from "./create-token-checker.js";
import { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";
import { InvalidSignatureError } from "./errors/invalid-signature-error.js";
import { InvalidWebhookHeadersError } from "./errors/invalid-webhook-headers-error.js";
import { MissingTokenError } from "./errors/missing-token-error.js";
import { TimestampOutOfToleranceError } from "./errors/timestamp-out-of-tolerance-error.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";
import type { Maybe } from "./maybe.js";
import { parseJsonBody } from "./parse-json-body.js";
import type { ReceivedTraceparent } from "./read-traceparent.js";

export interface VerifierOptions {
  /** Accepted bearer tokens; several during rotation. At least one. */
  tokens: readonly string[];
  /**
   * Accepted keys, several during rotation, in any mix: `whsec_...` secrets (v1, HMAC-SHA256) and
   * `whpk_...` ed25519 public keys (v1a). At least one.
   */
  secrets: readonly string[];
  /** How far `webhook-timestamp` may be from `now()`, either way. Default 300. */
  toleranceSeconds?: number;
  /** Largest accepted body in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** The clock, for tests. */
  now?: () => Date;
}

/** A body whose signature and timestamp passed, parsed as JSON; its schema is checked next. */
export interface VerifiedBody {
  json: unknown;
  delivery: Delivery;
}

/** The checks in the order the contract prescribes, shared by `verify()` and every adapter. */
export interface VerificationSteps {
  maxBodyBytes: number;
  /** Bearer token (401), then content type (415). */
  checkHeaders(headers: IncomingHeaders): Maybe<void>;
  /**
   * With tokens checked `when-presented`: the token a webhook that needs one must carry (401 when there
   * is none; one presented was checked already by `checkHeaders`).
   */
  requireToken(headers: IncomingHeaders): void;
  /**
   * Signature and timestamp (401), then JSON (400); the caller checks the schema of the webhook the
   * delivery is (400). The caller reads the `traceparent` once (`readTraceparent`), for its spans
   * and for the delivery.
   */
  checkBody(
    rawBody: Uint8Array,
    headers: IncomingHeaders,
    traceparent: ReceivedTraceparent | undefined,
  ): Maybe<VerifiedBody>;
}

function requireHeader(headers: IncomingHeaders, name: string): string {
  const value = headerValue(headers, name);
  if (value === undefined) throw new InvalidWebhookHeadersError(name, "missing");
  // Stryker disable next-line StringLiteral: equivalent: the error says "Malformed" for anything but "missing"
  if (value === "duplicate") throw new InvalidWebhookHeadersError(name, "malformed");
  return value;
}

/**
 * The names the request's signature headers go under: Standard Webhooks' (`webhook-*`), or Svix's
 * (`svix-*`, a sender set to sign under them) when it has no `webhook-signature` but a `svix-signature`.
 * Never a mix: a request with both sets is read under the standard names alone.
 */
function signatureHeaderNames(headers: IncomingHeaders) {
  return headerValue(headers, WEBHOOK_SIGNATURE_HEADER) === undefined &&
    headerValue(headers, SIGNATURE_HEADER_NAMES.svix.signature) !== undefined
    ? SIGNATURE_HEADER_NAMES.svix
    : SIGNATURE_HEADER_NAMES.standard;
}

/** The core's verdicts as the receiver's HTTP errors (all 401). */
function toWebhookError(error: unknown, toleranceSeconds: number): unknown {
  if (!(error instanceof WebhookVerificationError)) return error;
  switch (error.reason) {
    case "invalid-header":
      // Stryker disable next-line StringLiteral: unreachable fallback (the core names the header of every invalid-header verdict); "malformed" as above
      return new InvalidWebhookHeadersError(error.header ?? "webhook-signature", "malformed");
    case "timestamp-too-old":
      return new TimestampOutOfToleranceError("old", toleranceSeconds);
    case "timestamp-too-new":
      return new TimestampOutOfToleranceError("new", toleranceSeconds);
    default:
      return new InvalidSignatureError();
  }
}

/**
 * `always`: every request carries one of `tokens` (checked first). `when-presented`: for a receiver some
 * of whose webhooks need no token (their document's `security` names none): a token presented must be
 * one of them, and the caller asks for one (`requireToken`) once it knows the webhook needs it.
 */
export type TokenMode = "always" | "when-presented";

export function createVerificationSteps(
  options: Omit<VerifierOptions, "tokens"> & { tokens?: readonly string[] | undefined },
  tokenMode: TokenMode = "always",
): VerificationSteps {
  const problems: string[] = [];
  if (tokenMode === "always" && (!Array.isArray(options.tokens) || options.tokens.length === 0))
    problems.push("tokens: at least one is required");
  // The one token rule of @plant-store/types, the one the store's admin API and CLI apply: a token
  // outside it could never be sent by the store, so configuring one is a mistake to report now.
  (Array.isArray(options.tokens) ? options.tokens : []).forEach((token, index) => {
    const result = BearerTokenSchema.safeParse(token);
    if (!result.success)
      problems.push(`tokens[${index}]: ${result.error.issues.map((issue) => issue.message).join(", ")}`);
  });
  if (!Array.isArray(options.secrets) || options.secrets.length === 0) {
    problems.push("secrets: at least one is required");
  }
  (options.secrets ?? []).forEach((secret, index) => {
    try {
      if (parseWebhookKey(secret).type === "signing") {
        problems.push(
          `secrets[${index}]: a whsk_ signing key belongs to the sender; give the receiver its whpk_ public key`,
        );
      }
    } catch (error) {
      problems.push(`secrets[${index}]: ${(error as Error).message}`);
    }
  });
  const toleranceSeconds = options.toleranceSeconds ?? TIMESTAMP_TOLERANCE_SECONDS;
  if (!Number.isInteger(toleranceSeconds) || toleranceSeconds < 0) {
    problems.push("toleranceSeconds: must be a non-negative integer");
  }
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0)
    problems.push("maxBodyBytes: must be a positive integer");
  if (problems.length > 0)
    throw new InvalidReceiverOptionsError(`Invalid receiver options: ${problems.join("; ")}`);

  const checkToken = createTokenChecker(options.tokens ?? []);
  const hasTokens = (options.tokens ?? []).length > 0;
  const verifySignature = createWebhookVerifier({
    secrets: options.secrets,
    toleranceSeconds,
    now: options.now,
  });
  const verified = (
    rawBody: Uint8Array,
    signed: SignedWebhook,
    traceparent: ReceivedTraceparent | undefined,
  ): VerifiedBody => ({
    json: parseJsonBody(rawBody),
    delivery: {
      webhookId: signed.webhookId,
      timestamp: new Date(signed.timestamp * 1000),
      traceparent: traceparent?.value,
    },
  });
  return {
    maxBodyBytes,
    checkHeaders(headers) {
      // A token-free receiver (none configured) ignores one presented: its webhooks ask for none.
      if (tokenMode === "always" || (hasTokens && headerValue(headers, "authorization") !== undefined))
        checkToken(headers);
      return checkContentType(headers);
    },
    requireToken(headers) {
      if (headerValue(headers, "authorization") === undefined) throw new MissingTokenError();
    },
    checkBody(rawBody, headers, traceparent) {
      let signed: Maybe<SignedWebhook>;
      try {
        const names = signatureHeaderNames(headers);
        signed = verifySignature(rawBody, {
          id: requireHeader(headers, names.id),
          timestamp: requireHeader(headers, names.timestamp),
          signature: requireHeader(headers, names.signature),
        });
      } catch (error) {
        throw toWebhookError(error, toleranceSeconds);
      }
      // The Web Crypto build answers with a promise; node:crypto at once. The promise branch runs
      // only with the Web build (test/integration/workerd.test.ts), which this package's in-process
      // mutation run cannot load: excluded from it rather than counted as untested.
      // Stryker disable all
      if (signed instanceof Promise) {
        return signed.then(
          (value) => verified(rawBody, value, traceparent),
          (error) => {
            throw toWebhookError(error, toleranceSeconds);
          },
        );
      }
      // Stryker restore all
      return verified(rawBody, signed, traceparent);
    },
  };
}
