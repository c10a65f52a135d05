import {
  WEBHOOK_EVENT_TYPE_HEADER,
  WEBHOOK_VERIFICATION_TYPE,
  WebhookVerificationSchema,
} from "@plant-store/types";
import { checkPayload } from "./check-payload.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";

/**
 * The body answering the store's verification request (`{"challenge": "<the one sent>"}`), or
 * undefined when the request is not one. Called only once the token and the signature passed, so
 * only a caller holding both learns anything. The `webhook-event-type` header names the request, and
 * its signed body must then be one (400 `ERR_INVALID_PAYLOAD` otherwise): the header alone, which is
 * not signed, never makes a delivery into a verification, and a delivery whose payload happens to
 * carry a `type` and a `challenge` still reaches its handler.
 */
export function answerVerification(json: unknown, headers: IncomingHeaders): string | undefined {
  if (headerValue(headers, WEBHOOK_EVENT_TYPE_HEADER) !== WEBHOOK_VERIFICATION_TYPE) return undefined;
  const { challenge } = checkPayload(WebhookVerificationSchema, json, WEBHOOK_VERIFICATION_TYPE);
  return JSON.stringify({ challenge });
}
