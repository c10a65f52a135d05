/**
 * A `Retry-After` value (delta seconds or an HTTP date, RFC 9110 §10.2.3) as a delay in ms from
 * `now`, or undefined when absent or unreadable. Dates in the past give 0.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
