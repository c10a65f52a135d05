/** What one HTTP attempt came to. Exactly one of `status` and `error` is set. */
export interface AttemptResult {
  /** The receiver's HTTP status, or null when no answer came. */
  status: number | null;
  /** An error code (`ETIMEDOUT`, `ECONNREFUSED`, `ERR_SSRF_BLOCKED`, …) when no answer came. */
  error: string | null;
  startedAt: Date;
  durationMs: number;
  /** The first bytes of the answer, decoded as UTF-8; NUL and bytes that are not UTF-8 read as U+FFFD. */
  responseBody: string;
  /** The answer's `Retry-After`, as a delay in ms. */
  retryAfterMs?: number;
}
