import { MAX_SIGNATURE_HEADER_LENGTH, MAX_WEBHOOK_ID_LENGTH } from "./limits.js";

const PRINTABLE = /^[\x21-\x7e]+$/;
const DIGITS = /^[0-9]{1,15}$/;

/** Length in code points, as zod (and JSON Schema) count it: a surrogate pair is one. */
function codePoints(value: string): number {
  let count = value.length;
  // Stryker disable next-line EqualityOperator,ArithmeticOperator: equivalent: past the end charCodeAt is NaN, and NaN & 0xfc00 is 0, never a surrogate
  for (let i = 0; i < value.length - 1; i++) {
    if ((value.charCodeAt(i) & 0xfc00) === 0xd800 && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

/**
 * The `WebhookIdSchema`, `WebhookTimestampSchema` and `WebhookSignatureSchema` checks of
 * `@plant-store/types` as plain predicates on a header string, without zod's per-call result
 * objects. Same limits (string lengths in code points, as zod counts them) and patterns; a differential test holds them to the schemas.
 */
export const webhookHeaderChecks = {
  id: (value: string): boolean =>
    value.length >= 1 && value.length <= MAX_WEBHOOK_ID_LENGTH && PRINTABLE.test(value),
  timestamp: (value: string): boolean => DIGITS.test(value),
  // Code points never outnumber UTF-16 units, so they are counted only past the limit in units.
  signature: (value: string): boolean =>
    value.length >= 1 &&
    (value.length <= MAX_SIGNATURE_HEADER_LENGTH || codePoints(value) <= MAX_SIGNATURE_HEADER_LENGTH),
} as const;
