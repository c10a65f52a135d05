/** How a receiver must judge a vector's delivery. */
export type TestVectorVerdict = "valid" | "no-matching-signature" | "timestamp-too-old" | "timestamp-too-new";

/**
 * One Standard Webhooks v1 or v1a signing vector. `signature` is always what signing `id`, `timestamp` and
 * `body` with `secrets` yields; `received` is what a receiver sees on the wire (different from the
 * signed values in tampering vectors), judged with `receiverSecrets` when its clock reads `now`.
 */
export interface TestVector {
  /** A stable kebab-case name. */
  readonly name: string;
  readonly description: string;
  /** The `webhook-id` that was signed. */
  readonly id: string;
  /** The Unix time in seconds that was signed. */
  readonly timestamp: number;
  /** The raw body that was signed (sent as UTF-8). */
  readonly body: string;
  /** The keys the sender signed with, one signature each: `whsec_` (v1, HMAC-SHA256) or `whsk_` (v1a, ed25519). */
  readonly secrets: readonly string[];
  /** The expected `webhook-signature` header value. */
  readonly signature: string;
  readonly received: {
    readonly id: string;
    readonly timestamp: number;
    readonly body: string;
    readonly signature: string;
  };
  /** The keys the receiver holds: `whsec_` secrets and/or `whpk_` ed25519 public keys. */
  readonly receiverSecrets: readonly string[];
  /** The receiver's clock, Unix seconds. */
  readonly now: number;
  readonly expected: TestVectorVerdict;
}

/**
 * Input a Standard Webhooks signer must refuse (`expected: "invalid-sign-input"`) instead of signing
 * something a receiver would read differently. `timestamp` is deliberately any JSON value.
 */
export interface SignInputVector {
  readonly name: string;
  readonly description: string;
  readonly id: string;
  readonly timestamp: unknown;
  readonly body: string;
  readonly secrets: readonly string[];
  readonly expected: "invalid-sign-input";
}
