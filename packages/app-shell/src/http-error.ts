/**
 * An error an app answers with its own status: the error boundary turns it into the contract's
 * Error body `{error: status, message}`. Any error class with a numeric `status` and a string `code`
 * is answered the same way; this one is for refusals that have no class of their own.
 */
export class HttpError extends Error {
  override readonly name: string = "HttpError";
  readonly status: number;
  readonly code: string;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** A method the matched path does not have (or no path matched: the boundary then answers 404). */
export class MethodNotAllowedError extends HttpError {
  override readonly name = "MethodNotAllowedError";
  constructor() {
    super(405, "ERR_METHOD_NOT_ALLOWED", "Method not allowed");
  }
}
