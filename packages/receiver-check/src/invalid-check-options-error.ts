/** Options the check cannot run with; `problems` lists every one, never a secret's value. */
export class InvalidCheckOptionsError extends Error {
  override readonly name = "InvalidCheckOptionsError";
  readonly code = "ERR_INVALID_CHECK_OPTIONS";

  constructor(readonly problems: readonly string[]) {
    super(`Invalid check options: ${problems.join("; ")}`);
  }
}
