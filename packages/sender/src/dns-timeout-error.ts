/** A delivery target's name did not resolve within the attempt's time: a failed attempt, retried like any network error. */
export class DnsTimeoutError extends Error {
  readonly code = "ERR_DNS_TIMEOUT";
  override readonly name = "DnsTimeoutError";
}
