import { equalAt } from "./equal-at.js";
import { InvalidSignInputError } from "./invalid-sign-input-error.js";
import {
  MAX_VERIFICATION_CHALLENGE_LENGTH,
  MIN_VERIFICATION_CHALLENGE_LENGTH,
  TIMESTAMP_TOLERANCE_SECONDS,
} from "./limits.js";
import { type Maybe, settle, settleAll } from "./maybe.js";
import type { SignedBody, WebhookCrypto } from "./webhook-crypto.js";
import { webhookHeaderChecks } from "./webhook-header-checks.js";
import { parseWebhookKey, type WebhookKey } from "./webhook-key.js";
import { InvalidWebhookSecretError } from "./webhook-secret-error.js";
import { WebhookVerificationError } from "./webhook-verification-error.js";

/** A key as the signer and verifier take it: its text, or the raw bytes of a `whsec_` secret. */
export type WebhookKeyInput = string | Uint8Array;

export interface WebhookMessage {
  /** The `webhook-id`. */
  id: string;
  /** Unix time in whole seconds. */
  timestamp: number;
  /** The exact bytes sent as the request body (a string is sent as UTF-8). */
  body: SignedBody;
}

export interface SignWebhookInput extends WebhookMessage {
  /** `whsec_` and/or `whsk_` keys (several during rotation): one signature each, in order. */
  secrets: readonly WebhookKeyInput[];
}

/** The three Standard Webhooks headers as received. */
export interface WebhookSignatureHeaders {
  id: string;
  timestamp: string;
  signature: string;
}

export interface WebhookVerifierOptions {
  /** `whsec_` secrets and/or `whpk_` public keys, in any mix (rotation, migration to v1a). At least one. */
  secrets: readonly WebhookKeyInput[];
  /** How far `webhook-timestamp` may be from `now()`, either way (inclusive). Default 300. */
  toleranceSeconds?: number | undefined;
  /** The clock, for tests. Default `Date.now()`. */
  now?: (() => Date) | undefined;
}

/** What a verified delivery was signed with. */
export interface SignedWebhook {
  webhookId: string;
  /** Seconds since the epoch, as signed. */
  timestamp: number;
}

/** The store's verification request an answer is made for: its `webhook-id` header and its body's challenge. */
export interface VerificationChallengeInput {
  webhookId: string;
  challenge: string;
}

export interface AnswerVerificationInput extends VerificationChallengeInput {
  /**
   * The receiver's keys, as its verifier takes them: each `whsec_` secret (or raw secret bytes) adds
   * one `v1,` part; `whpk_` public keys prove nothing and are skipped. At least one secret.
   */
  secrets: readonly WebhookKeyInput[];
}

export interface CheckVerificationResponseInput extends VerificationChallengeInput {
  /** The endpoint's current keys: its `whsec_` secrets are the ones an answer may prove; `whsk_` keys are skipped. */
  secrets: readonly WebhookKeyInput[];
  /** The answer's `response`, as received (any value: a non-string never matches). */
  response: unknown;
}

const CHALLENGE_PATTERN = new RegExp(
  `^[A-Za-z0-9_-]{${MIN_VERIFICATION_CHALLENGE_LENGTH},${MAX_VERIFICATION_CHALLENGE_LENGTH}}$`,
);

/**
 * What the answer's MAC covers: `webhook.verification.<webhook-id>.<challenge>`. Never the content of
 * a signature (`<id>.<timestamp>.<body>`, the timestamp all digits): the store's webhook ids start
 * `msg_`, so no request it signs begins `webhook.verification.`, and an echo of the request's own
 * `webhook-signature` is never an answer. Bound to the webhook-id as well as the
 * challenge, so an answer is good for that one request.
 */
function verificationPrefix(webhookId: string): string {
  return `webhook.verification.${webhookId}.`;
}

/** `v1a,` and the one spelling of a 64-byte ed25519 signature: 86 characters, the last carrying 4 zero bits, then `==`. */
const CANONICAL_V1A = /^v1a,[A-Za-z0-9+/]{85}[AQgw]==$/;

/**
 * Whether any `v1,` part is `expected`, our MAC in canonical base64, compared as text where it
 * stands in the header: no decoding, and every part of the right length is compared (no early
 * exit). A MAC has one canonical spelling, so a part that spells the same bytes another way
 * (missing padding, base64url, stray characters, non-zero padding bits) can never be one we made,
 * and never matches, though a lenient decoder would forgive it.
 */
function matchesV1(parts: readonly string[], expected: string): boolean {
  let found = false;
  for (const part of parts) {
    if (part.startsWith("v1,")) found = equalAt(part, 3, expected) || found;
  }
  return found;
}

function keyOf(input: WebhookKeyInput): WebhookKey {
  if (typeof input === "string") return parseWebhookKey(input);
  // Stryker disable next-line StringLiteral: equivalent: the core reads a key's type, never its scheme
  if (input instanceof Uint8Array && input.length > 0) return { scheme: "v1", type: "secret", key: input };
  throw new InvalidWebhookSecretError("Webhook secret must be a non-empty string or non-empty bytes");
}

/**
 * The one implementation of Standard Webhooks signing and verifying (v1 HMAC-SHA256 and v1a
 * ed25519), over a runtime's primitives. With `node:crypto` every call returns a plain value; with
 * Web Crypto, a promise. The Node and Web builds of `@plant-store/types` each bind one.
 */
export function createSigningCore(crypto: WebhookCrypto) {
  function createWebhookSigner(
    secrets: readonly WebhookKeyInput[],
  ): (message: WebhookMessage) => Maybe<string> {
    if (!Array.isArray(secrets) || secrets.length === 0) {
      throw new InvalidSignInputError("secrets: at least one key is required");
    }
    const signers = secrets.map((secret, index) => {
      let key: WebhookKey;
      try {
        key = keyOf(secret);
      } catch (error) {
        throw new InvalidSignInputError(`secrets[${index}]: ${(error as Error).message}`, { cause: error });
      }
      if (key.type === "public") {
        throw new InvalidSignInputError(
          `secrets[${index}]: a whpk_ public key cannot sign; give the sender the whsk_ signing key`,
        );
      }
      if (key.type === "secret") {
        const mac = crypto.hmacSha256(key.key);
        return (prefix: string, body: SignedBody) => settle(mac(prefix, body), (base64) => `v1,${base64}`);
      }
      try {
        const sign = crypto.ed25519Signer(key.seed, key.publicKey);
        return (prefix: string, body: SignedBody) =>
          settle(sign(prefix, body), (signature) => `v1a,${crypto.toBase64(signature)}`);
      } catch (error) {
        throw new InvalidSignInputError(`secrets[${index}]: ${(error as Error).message}`, { cause: error });
      }
    });
    // Stryker disable next-line ConditionalExpression: equivalent as undefined: one signature gathered and joined is the same header
    const only = signers.length === 1 ? signers[0] : undefined;
    return ({ id, timestamp, body }) => {
      if (typeof id !== "string" || !webhookHeaderChecks.id(id)) {
        throw new InvalidSignInputError("id: must be 1 to 256 printable ASCII characters without spaces");
      }
      // Whole seconds only: `${1614265330.5}` would put a dot inside the signed `id.timestamp.body`.
      // Number.isSafeInteger is false for anything that is not a number, so no typeof check.
      if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
        throw new InvalidSignInputError("timestamp: must be a non-negative integer number of seconds");
      }
      if (typeof body !== "string" && !(body instanceof Uint8Array)) {
        throw new InvalidSignInputError("body: must be a string or bytes");
      }
      const prefix = `${id}.${timestamp}.`;
      // One key (nearly every endpoint, outside a rotation): its signature is the header, with no list
      // to gather and join per message.
      // Stryker disable next-line ConditionalExpression: equivalent as false, as above
      if (only !== undefined) return only(prefix, body);
      return settleAll(
        signers.map((sign) => sign(prefix, body)),
        (values) => values.join(" "),
      );
    };
  }

  /** The `webhook-signature` header value: one `v1,` (whsec_) or `v1a,` (whsk_) signature per key. */
  function signWebhook(input: SignWebhookInput): Maybe<string> {
    return createWebhookSigner(input?.secrets)(input);
  }

  function createWebhookVerifier(
    options: WebhookVerifierOptions,
  ): (body: SignedBody, headers: WebhookSignatureHeaders) => Maybe<SignedWebhook> {
    const tolerance = options.toleranceSeconds ?? TIMESTAMP_TOLERANCE_SECONDS;
    if (!Number.isSafeInteger(tolerance) || tolerance < 0) {
      throw new RangeError("toleranceSeconds must be a non-negative integer");
    }
    if (!Array.isArray(options.secrets) || options.secrets.length === 0) {
      throw new InvalidWebhookSecretError("At least one webhook secret or public key is required");
    }
    const macs: ((prefix: string, body: SignedBody) => Maybe<string>)[] = [];
    const publicKeys: ((prefix: string, body: SignedBody, signature: Uint8Array) => Maybe<boolean>)[] = [];
    options.secrets.forEach((secret, index) => {
      const key = keyOf(secret);
      if (key.type === "signing") {
        throw new InvalidWebhookSecretError(
          `secrets[${index}]: a whsk_ signing key belongs to the sender; give the receiver its whpk_ public key`,
        );
      }
      if (key.type === "secret") macs.push(crypto.hmacSha256(key.key));
      else publicKeys.push(crypto.ed25519Verifier(key.publicKey));
    });
    const { now } = options;

    return (body, headers) => {
      const { id, timestamp: timestampText, signature } = headers;
      if (!webhookHeaderChecks.id(id))
        throw new WebhookVerificationError("invalid-header", "Malformed webhook-id", "webhook-id");
      if (!webhookHeaderChecks.timestamp(timestampText)) {
        throw new WebhookVerificationError(
          "invalid-header",
          "Malformed webhook-timestamp",
          "webhook-timestamp",
        );
      }
      if (!webhookHeaderChecks.signature(signature)) {
        throw new WebhookVerificationError(
          "invalid-header",
          "Malformed webhook-signature",
          "webhook-signature",
        );
      }
      // Space-separated; versions this receiver does not know are skipped, as the spec says.
      const parts = signature.split(" ");
      const prefix = `${id}.${timestampText}.`;
      // Every candidate is compared with every key, with no early exit. On node:crypto everything
      // below runs at once; Web Crypto's promises are gathered.
      let matched = false;
      const pending: Promise<boolean>[] = [];
      for (const mac of macs) {
        const expected = mac(prefix, body);
        if (typeof expected === "string") matched = matchesV1(parts, expected) || matched;
        else pending.push(expected.then((value) => matchesV1(parts, value)));
      }
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent: with no public key the loop only reads each part's spelling and compares nothing; the guard saves that
      if (publicKeys.length > 0) {
        for (const part of parts) {
          if (!CANONICAL_V1A.test(part)) continue;
          const candidate = crypto.fromBase64(part.slice(4));
          for (const check of publicKeys) {
            const verified = check(prefix, body, candidate);
            if (verified instanceof Promise) pending.push(verified);
            else matched = verified || matched;
          }
        }
      }
      if (pending.length === 0) return finish(matched, id, timestampText);
      const already = matched;
      return Promise.all(pending).then((results) =>
        finish(already || results.includes(true), id, timestampText),
      );
    };

    // The signature before the timestamp: an unsigned request learns nothing about our clock.
    function finish(ok: boolean, id: string, timestampText: string): SignedWebhook {
      if (!ok) throw new WebhookVerificationError("no-matching-signature", "No matching signature");
      const timestamp = Number(timestampText);
      const nowSeconds = Math.floor((now === undefined ? Date.now() : now().getTime()) / 1000);
      if (timestamp < nowSeconds - tolerance) {
        throw new WebhookVerificationError("timestamp-too-old", "Timestamp too old");
      }
      if (timestamp > nowSeconds + tolerance) {
        throw new WebhookVerificationError("timestamp-too-new", "Timestamp too new");
      }
      return { webhookId: id, timestamp };
    }
  }

  /** The HMACs of each `whsec_` secret among `secrets` (others skipped), prepared once per key. */
  function secretMacs(secrets: readonly WebhookKeyInput[]) {
    return secrets.flatMap((secret) => {
      const key = keyOf(secret);
      return key.type === "secret" ? [crypto.hmacSha256(key.key)] : [];
    });
  }

  function checkChallengeInput({ webhookId, challenge }: VerificationChallengeInput): void {
    if (typeof webhookId !== "string" || !webhookHeaderChecks.id(webhookId)) {
      throw new InvalidSignInputError(
        "webhookId: must be 1 to 256 printable ASCII characters without spaces",
      );
    }
    if (typeof challenge !== "string" || !CHALLENGE_PATTERN.test(challenge)) {
      throw new InvalidSignInputError(
        `challenge: must be ${MIN_VERIFICATION_CHALLENGE_LENGTH} to ${MAX_VERIFICATION_CHALLENGE_LENGTH} base64url characters`,
      );
    }
  }

  /**
   * The `response` of a receiver's answer to the store's verification request: `v1,<base64
   * HMAC-SHA256>` of `webhook.verification.<webhook-id>.<challenge>` under each `whsec_` secret,
   * space-separated (several during rotation, so whichever the store holds now matches). Proves the
   * secret: an echo of the request, or any server without it, cannot make one.
   */
  function answerVerificationChallenge(input: AnswerVerificationInput): Maybe<string> {
    checkChallengeInput(input);
    if (!Array.isArray(input.secrets))
      throw new InvalidSignInputError("secrets: at least one whsec_ secret is required");
    let macs: ReturnType<typeof secretMacs>;
    try {
      macs = secretMacs(input.secrets);
    } catch (error) {
      throw new InvalidSignInputError(`secrets: ${(error as Error).message}`, { cause: error });
    }
    if (macs.length === 0) {
      throw new InvalidSignInputError(
        "secrets: the answer proves a whsec_ secret, and none was given (a whpk_ public key proves nothing)",
      );
    }
    const prefix = verificationPrefix(input.webhookId);
    return settleAll(
      macs.map((mac) => mac(prefix, input.challenge)),
      (values) => values.map((value) => `v1,${value}`).join(" "),
    );
  }

  /**
   * Whether a `response` holds a `v1,` part made (by `answerVerificationChallenge`) with any of the
   * endpoint's `whsec_` secrets for this request. Every part is compared with every secret's MAC as
   * text, in constant time, with no early exit; other parts are ignored. False when the endpoint has
   * no `whsec_` secret (a `whsk_` key's receivers hold only its public key, which proves nothing).
   */
  function checkVerificationResponse(input: CheckVerificationResponseInput): Maybe<boolean> {
    checkChallengeInput(input);
    if (!Array.isArray(input.secrets)) throw new InvalidSignInputError("secrets: must be a list of keys");
    const { response } = input;
    if (typeof response !== "string") return false;
    const macs = secretMacs(input.secrets);
    const parts = response.split(" ");
    const prefix = verificationPrefix(input.webhookId);
    return settleAll(
      macs.map((mac) => mac(prefix, input.challenge)),
      (expected) => expected.reduce((found, value) => matchesV1(parts, value) || found, false),
    );
  }

  /** A new v1a key pair: `whsk_` (seed and public key, as Svix issues them) for the sender, `whpk_` for receivers. */
  function generateWebhookKeyPair(): Maybe<{ signingKey: string; publicKey: string }> {
    return settle(crypto.generateEd25519(), ({ seed, publicKey }) => {
      const both = new Uint8Array(64);
      both.set(seed);
      both.set(publicKey, 32);
      return { signingKey: `whsk_${crypto.toBase64(both)}`, publicKey: `whpk_${crypto.toBase64(publicKey)}` };
    });
  }

  return {
    createWebhookSigner,
    signWebhook,
    createWebhookVerifier,
    generateWebhookKeyPair,
    answerVerificationChallenge,
    checkVerificationResponse,
  };
}
