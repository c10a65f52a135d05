/**
 * Whether `text`, read from `offset`, is exactly `expected`, in time that depends only on the
 * lengths: every character is compared and the differences are OR-ed together, with no early exit
 * at the first one that differs. Lengths are public (a MAC's base64 is always 44 characters).
 */
export function equalAt(text: string, offset: number, expected: string): boolean {
  if (text.length - offset !== expected.length) return false;
  let diff = 0;
  // Stryker disable next-line EqualityOperator: equivalent: one step past the end ORs in NaN ^ NaN, which is 0
  for (let i = 0; i < expected.length; i++) diff |= text.charCodeAt(offset + i) ^ expected.charCodeAt(i);
  return diff === 0;
}
