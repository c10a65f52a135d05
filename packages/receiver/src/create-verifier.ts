import { type Delivery, NEW_PLANT_EVENT, type NewPlant, NewPlantSchema } from "@plant-store/types";
import { checkPayload } from "./check-payload.js";
import {
  createVerificationSteps,
  type VerifiedBody,
  type VerifierOptions,
} from "./create-verification-steps.js";
import { InternalReceiverError } from "./errors/internal-receiver-error.js";
import { PayloadTooLargeError } from "./errors/payload-too-large-error.js";
import type { IncomingHeaders } from "./header-value.js";
import { readTraceparent } from "./read-traceparent.js";
import { WebhookError } from "./webhook-error.js";

export type VerifyResult =
  | { ok: true; plant: NewPlant; delivery: Delivery }
  | { ok: false; error: WebhookError };

export type VerifyFunction = (rawBody: Uint8Array | string, headers: IncomingHeaders) => VerifyResult;

/** `verify(rawBody, headers)`; also reachable as `verifier.verify(...)`. */
export type Verifier = VerifyFunction & { verify: VerifyFunction };

const utf8 = new TextEncoder();

/**
 * Framework-free, synchronous verification of one delivery on node:crypto: bearer token, content
 * type, size, signature (v1 and v1a) and timestamp, JSON, schema (in that order; no de-duplication).
 * Pass the exact bytes received. Throws `InvalidReceiverOptionsError` for unusable options; never
 * throws for a bad request. (In other runtimes, use `createFetchHandler`.)
 */
export function createVerifier(options: VerifierOptions): Verifier {
  const steps = createVerificationSteps(options);
  const verify: VerifyFunction = (rawBody, headers) => {
    try {
      // On node:crypto both steps finish at once: nothing here is a promise.
      steps.checkHeaders(headers);
      const bytes = typeof rawBody === "string" ? utf8.encode(rawBody) : rawBody;
      if (bytes.length > steps.maxBodyBytes) throw new PayloadTooLargeError(steps.maxBodyBytes);
      const { json, delivery } = steps.checkBody(bytes, headers, readTraceparent(headers)) as VerifiedBody;
      return { ok: true, plant: checkPayload(NewPlantSchema, json, NEW_PLANT_EVENT), delivery };
    } catch (error) {
      return { ok: false, error: error instanceof WebhookError ? error : new InternalReceiverError(error) };
    }
  };
  return Object.assign(verify, { verify });
}
