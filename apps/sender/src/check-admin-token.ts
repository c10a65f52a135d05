import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** A constant-time check of `Authorization: Bearer <token>` (hashing first evens out the lengths). */
export function checkAdminToken(header: string | undefined, expected: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? "");
  const given = match?.[1] ?? "";
  return timingSafeEqual(digest(given), digest(expected)) && given.length > 0;
}
