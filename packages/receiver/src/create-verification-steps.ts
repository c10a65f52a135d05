import {
  type Delivery,
  MAX_BODY_BYTES,
  type NewPlant,
  parseWebhookSecret,
  TIMESTAMP_TOLERANCE_SECONDS,
} from "@plant-store/types";
import { checkContentType } from "./check-content-type.js";
import { createSignatureChecker } from "./create-signature-checker.js";
import { createTokenChecker } from "./create-token-checker.js";
import { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";
import type { IncomingHeaders } from "./header-value.js";
import { parseNewPlant } from "./parse-new-plant.js";

export interface VerifierOptions {
  /** Accepted bearer tokens; several during rotation. At least one. */
  tokens: readonly string[];
  /** Accepted `whsec_...` signing secrets; several during rotation. At least one. */
  secrets: readonly string[];
  /** How far `webhook-timestamp` may be from `now()`, either way. Default 300. */
  toleranceSeconds?: number;
  /** Largest accepted body in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** The clock, for tests. */
  now?: () => Date;
}

/** The checks in the order the contract prescribes, shared by `verify()` and the Koa router. */
export interface VerificationSteps {
  maxBodyBytes: number;
  /** Bearer token (401), then content type (415). */
  checkHeaders(headers: IncomingHeaders): void;
  /** Signature and timestamp (401), JSON (400), schema (400). */
  checkBody(rawBody: Buffer, headers: IncomingHeaders): { plant: NewPlant; delivery: Delivery };
}

export function createVerificationSteps(options: VerifierOptions): VerificationSteps {
  const problems: string[] = [];
  if (!Array.isArray(options.tokens) || options.tokens.length === 0)
    problems.push("tokens: at least one is required");
  if (options.tokens?.some((t) => typeof t !== "string" || !/^\S+$/.test(t))) {
    problems.push("tokens: each must be a non-empty string without whitespace");
  }
  if (!Array.isArray(options.secrets) || options.secrets.length === 0) {
    problems.push("secrets: at least one is required");
  }
  const keys: Buffer[] = [];
  (options.secrets ?? []).forEach((secret, index) => {
    try {
      keys.push(parseWebhookSecret(secret));
    } catch (error) {
      problems.push(`secrets[${index}]: ${(error as Error).message}`);
    }
  });
  const toleranceSeconds = options.toleranceSeconds ?? TIMESTAMP_TOLERANCE_SECONDS;
  if (!Number.isInteger(toleranceSeconds) || toleranceSeconds < 0) {
    problems.push("toleranceSeconds: must be a non-negative integer");
  }
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0)
    problems.push("maxBodyBytes: must be a positive integer");
  if (problems.length > 0)
    throw new InvalidReceiverOptionsError(`Invalid receiver options: ${problems.join("; ")}`);

  const checkToken = createTokenChecker(options.tokens);
  const checkSignature = createSignatureChecker({
    keys,
    toleranceSeconds,
    now: options.now,
  });
  return {
    maxBodyBytes,
    checkHeaders(headers) {
      checkToken(headers);
      checkContentType(headers);
    },
    checkBody(rawBody, headers) {
      const signed = checkSignature(rawBody, headers);
      const plant = parseNewPlant(rawBody);
      return {
        plant,
        delivery: { webhookId: signed.webhookId, timestamp: new Date(signed.timestamp * 1000) },
      };
    },
  };
}
