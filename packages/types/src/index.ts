// The Node build (`node` export condition): signing on node:crypto, results returned at once.
export * from "./common.js";
export {
  answerVerificationChallenge,
  checkVerificationResponse,
  createWebhookSigner,
  createWebhookVerifier,
  generateWebhookKeyPair,
  signWebhook,
} from "./node-signing.js";
