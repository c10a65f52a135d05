// The Web Crypto build (Workers, Deno, browsers, every runtime without the `node` condition): no
// Node built-in on its import path; signing and verifying return promises.
export * from "./common.js";
export {
  answerVerificationChallenge,
  checkVerificationResponse,
  createWebhookSigner,
  createWebhookVerifier,
  generateWebhookKeyPair,
  signWebhook,
} from "./web-signing.js";
