import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether `candidate` is the operator token, compared in constant time (hashing first evens out the lengths). */
export function isOperatorToken(candidate: string, expected: string): boolean {
  return timingSafeEqual(digest(candidate), digest(expected)) && candidate.length > 0;
}
