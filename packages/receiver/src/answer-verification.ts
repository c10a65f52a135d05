import {
  answerVerificationChallenge,
  parseWebhookKey,
  WEBHOOK_EVENT_TYPE_HEADER,
  WEBHOOK_VERIFICATION_TYPE,
  WebhookVerificationSchema,
} from "@plant-store/types";
import { checkPayload } from "./check-payload.js";
import { VerificationUnanswerableError } from "./errors/verification-unanswerable-error.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";
import type { Maybe } from "./maybe.js";

/**
 * The answer to the store's verification request, or undefined when the request is not one. Made
 * for the receiver's keys (already checked by its options): its `whsec_` secrets prove themselves,
 * its `whpk_` public keys cannot.
 */
export type VerificationAnswerer = (
  json: unknown,
  headers: IncomingHeaders,
  webhookId: string,
) => Maybe<string> | undefined;

/**
 * Answers `{"challenge": "<the one sent>", "response": "v1,<HMAC> ..."}`: the response proves the
 * receiver holds the endpoint's signing secret (`answerVerificationChallenge`, one part per `whsec_`
 * secret, so whichever the store signs with during a rotation matches), which an echo of the request
 * cannot. Called only once the token and the signature passed, so only a caller holding both learns
 * anything. The `webhook-event-type` header names the request, and its signed body must then be one
 * (400 `ERR_INVALID_PAYLOAD` otherwise): the header alone, which is not signed, never makes a delivery
 * into a verification, and a delivery whose payload happens to carry a `type` and a `challenge` still
 * reaches its handler. A receiver with no `whsec_` secret answers 501 `ERR_VERIFICATION_UNANSWERABLE`.
 */
export function createVerificationAnswerer(keys: readonly string[]): VerificationAnswerer {
  const secrets = keys.filter((key) => parseWebhookKey(key).type === "secret");
  return (json, headers, webhookId) => {
    if (headerValue(headers, WEBHOOK_EVENT_TYPE_HEADER) !== WEBHOOK_VERIFICATION_TYPE) return undefined;
    const { challenge } = checkPayload(WebhookVerificationSchema, json, WEBHOOK_VERIFICATION_TYPE);
    if (secrets.length === 0) throw new VerificationUnanswerableError();
    // A plain string on node:crypto; a promise only from the Web Crypto build, which the in-process
    // mutation run cannot load (test/integration/workerd.test.ts covers it).
    const response = answerVerificationChallenge({ secrets, webhookId, challenge }) as Maybe<string>;
    // Stryker disable all
    if (response instanceof Promise)
      return response.then((value) => JSON.stringify({ challenge, response: value }));
    // Stryker restore all
    return JSON.stringify({ challenge, response });
  };
}
