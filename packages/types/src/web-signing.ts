import {
  type AnswerVerificationInput,
  type CheckVerificationResponseInput,
  createSigningCore,
  type SignedWebhook,
  type SignWebhookInput,
  type WebhookKeyInput,
  type WebhookMessage,
  type WebhookSignatureHeaders,
  type WebhookVerifierOptions,
} from "./create-signing-core.js";
import { webWebhookCrypto } from "./web-webhook-crypto.js";
import type { SignedBody } from "./webhook-crypto.js";

const core = createSigningCore(webWebhookCrypto);

/** Signs with every key: `v1,` for `whsec_`, `v1a,` for `whsk_`. Rejects with `InvalidSignInputError`. */
export function createWebhookSigner(
  secrets: readonly WebhookKeyInput[],
): (message: WebhookMessage) => Promise<string> {
  const sign = core.createWebhookSigner(secrets);
  // Input errors reject too, so callers handle one kind of failure.
  return async (message) => sign(message);
}

/** The `webhook-signature` header value for one delivery. */
export async function signWebhook(input: SignWebhookInput): Promise<string> {
  return core.signWebhook(input);
}

/** Verifies against `whsec_` secrets and `whpk_` public keys; rejects with `WebhookVerificationError`. */
export function createWebhookVerifier(
  options: WebhookVerifierOptions,
): (body: SignedBody, headers: WebhookSignatureHeaders) => Promise<SignedWebhook> {
  const verify = core.createWebhookVerifier(options);
  return async (body, headers) => verify(body, headers);
}

/** A new v1a key pair (`whsk_` for the sender, `whpk_` for receivers). */
export async function generateWebhookKeyPair(): Promise<{ signingKey: string; publicKey: string }> {
  return core.generateWebhookKeyPair();
}

/**
 * A receiver's `response` to the store's verification request: `v1,<base64 HMAC-SHA256 of
 * webhook.verification.<webhook-id>.<challenge>>` per `whsec_` secret. Rejects with `InvalidSignInputError`.
 */
export async function answerVerificationChallenge(input: AnswerVerificationInput): Promise<string> {
  return core.answerVerificationChallenge(input);
}

/** Whether an answer's `response` proves one of the endpoint's `whsec_` secrets (constant time). */
export async function checkVerificationResponse(input: CheckVerificationResponseInput): Promise<boolean> {
  return core.checkVerificationResponse(input);
}
