import type { ConstantTimeEqual } from "./constant-time-equal.js";

/**
 * For runtimes without node:crypto (Web Crypto has no comparison): every byte is read and the
 * differences are OR-ed together, so the loop never stops early at the first differing byte.
 */
export const webConstantTimeEqual: ConstantTimeEqual = (a, b) => {
  let diff = a.length ^ b.length;
  // Stryker disable next-line EqualityOperator: equivalent: one step past the end XORs 0 with undefined, which is 0
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ (b[i] as number);
  return diff === 0;
};
