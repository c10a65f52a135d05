/** An error the admin API answers with its own status and message as `{error, message}`. */
export class AdminError extends Error {
  override readonly name: string = "AdminError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Set on the answer (e.g. `Retry-After` of a 429). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new AdminError(404, "ERR_NOT_FOUND", `${what} not found`);
export const invalidInput = (message: string) => new AdminError(400, "ERR_INVALID_INPUT", message);
