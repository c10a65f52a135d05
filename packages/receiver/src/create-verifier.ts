import type { Delivery, NewPlant } from "@plant-store/types";
import { createVerificationSteps, type VerifierOptions } from "./create-verification-steps.js";
import { InternalReceiverError } from "./errors/internal-receiver-error.js";
import { PayloadTooLargeError } from "./errors/payload-too-large-error.js";
import type { IncomingHeaders } from "./header-value.js";
import { WebhookError } from "./webhook-error.js";

export type VerifyResult =
  | { ok: true; plant: NewPlant; delivery: Delivery }
  | { ok: false; error: WebhookError };

export type VerifyFunction = (rawBody: Buffer | string, headers: IncomingHeaders) => VerifyResult;

/** `verify(rawBody, headers)`; also reachable as `verifier.verify(...)`. */
export type Verifier = VerifyFunction & { verify: VerifyFunction };

/**
 * Framework-free verification of one delivery: bearer token, content type, size, signature and
 * timestamp, JSON, schema (in that order; no de-duplication). Pass the exact bytes received.
 * Throws `InvalidReceiverOptionsError` for unusable options; never throws for a bad request.
 */
export function createVerifier(options: VerifierOptions): Verifier {
  const steps = createVerificationSteps(options);
  const verify: VerifyFunction = (rawBody, headers) => {
    try {
      steps.checkHeaders(headers);
      const bytes = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody;
      if (bytes.length > steps.maxBodyBytes) throw new PayloadTooLargeError(steps.maxBodyBytes);
      return { ok: true, ...steps.checkBody(bytes, headers) };
    } catch (error) {
      return { ok: false, error: error instanceof WebhookError ? error : new InternalReceiverError(error) };
    }
  };
  return Object.assign(verify, { verify });
}
