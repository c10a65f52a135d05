// Every error the CLI raises, each with a `code`; `runCli` prints its message and exits 2.

/** The document could not be read or parsed (missing file, bad JSON or YAML, not an object). */
export class DocumentReadError extends Error {
  readonly code = "ERR_DOCUMENT_READ";
  override readonly name = "DocumentReadError";
}

/** A flag or its environment variable is missing or unusable; the message names each, never a value. */
export class SettingsError extends Error {
  readonly code = "ERR_INVALID_SETTINGS";
  override readonly name = "SettingsError";
}

/** The API answered with an error (`{error, message}`): its status and its own message. */
export class ApiError extends Error {
  readonly code = "ERR_API";
  override readonly name = "ApiError";
  constructor(
    message: string,
    /** The answer's HTTP status. */
    readonly status: number,
    /** The API's own message, as it said it. */
    readonly apiMessage: string,
  ) {
    super(message);
  }
}

/** No answer from the API at all (refused, unresolvable, timed out): the cause's code says which. */
export class ApiUnreachableError extends Error {
  readonly code = "ERR_API_UNREACHABLE";
  override readonly name = "ApiUnreachableError";
}

/** `listen` could not start, or lost its session; the message says which and why. */
export class ListenError extends Error {
  readonly code = "ERR_LISTEN";
  override readonly name = "ListenError";
}
