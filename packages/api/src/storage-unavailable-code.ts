/**
 * The code of a database error that means "the store cannot read or write right now" (a read-only
 * or full disk, a lock held too long, a lost connection), or undefined for anything else. Such a
 * request changed nothing and may be tried again, so the admin API answers 503 rather than 500.
 */
export function storageUnavailableCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  if (code.startsWith("SQLITE_")) return code;
  // PostgreSQL SQLSTATE classes: 08 connection, 53 resources, 55 lock not available, 57 cancelled/shut down.
  if (/^(08|53|55|57)[0-9A-Z]{3}$/.test(code)) return `SQLSTATE ${code}`;
  if (["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE"].includes(code)) return code;
  return undefined;
}
