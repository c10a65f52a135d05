/** Thrown when a delivery target resolves to an address the SSRF guard refuses. */
export class SsrfBlockedError extends Error {
  readonly code = "ERR_SSRF_BLOCKED";
  override readonly name = "SsrfBlockedError";
}
