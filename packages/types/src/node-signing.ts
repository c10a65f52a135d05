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
import { nodeWebhookCrypto } from "./node-webhook-crypto.js";
import type { SignedBody } from "./webhook-crypto.js";

// node:crypto answers at once, so the core's results here are plain values, never promises.
const core = createSigningCore(nodeWebhookCrypto);

/** Signs with every key: `v1,` for `whsec_`, `v1a,` for `whsk_`. Throws `InvalidSignInputError`. */
export const createWebhookSigner = core.createWebhookSigner as (
  secrets: readonly WebhookKeyInput[],
) => (message: WebhookMessage) => string;

/** The `webhook-signature` header value for one delivery. Throws `InvalidSignInputError`. */
export const signWebhook = core.signWebhook as (input: SignWebhookInput) => string;

/** Verifies against `whsec_` secrets and `whpk_` public keys; throws `WebhookVerificationError`. */
export const createWebhookVerifier = core.createWebhookVerifier as (
  options: WebhookVerifierOptions,
) => (body: SignedBody, headers: WebhookSignatureHeaders) => SignedWebhook;

/** A new v1a key pair (`whsk_` for the sender, `whpk_` for receivers). */
export const generateWebhookKeyPair = core.generateWebhookKeyPair as () => {
  signingKey: string;
  publicKey: string;
};

/**
 * A receiver's `response` to the store's verification request: `v1,<base64 HMAC-SHA256 of
 * webhook.verification.<webhook-id>.<challenge>>` per `whsec_` secret. Throws `InvalidSignInputError`.
 */
export const answerVerificationChallenge = core.answerVerificationChallenge as (
  input: AnswerVerificationInput,
) => string;

/** Whether an answer's `response` proves one of the endpoint's `whsec_` secrets (constant time). */
export const checkVerificationResponse = core.checkVerificationResponse as (
  input: CheckVerificationResponseInput,
) => boolean;
