/** Why a fetch got no answer, as a code: the socket's (`ECONNREFUSED`, `ENOTFOUND`…), or a timeout's. */
export function networkErrorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  const name = (error as { name?: unknown } | undefined)?.name;
  return name === "TimeoutError" ? "ETIMEDOUT" : "ERR_NETWORK";
}
