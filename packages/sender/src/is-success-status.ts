/** A 2xx answer: the only one that delivers a webhook, and the only one that counts for an endpoint's health. */
export function isSuccessStatus(status: number | null): boolean {
  // No answer (null) is never a success; written so, no mutant can drop a redundant null check.
  const code = status ?? 0;
  return code >= 200 && code < 300;
}
