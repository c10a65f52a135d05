/** An error the admin API answers with its own status and message as `{error, message}`. */
export class WebhookApiError extends Error {
  override readonly name: string = "WebhookApiError";
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

export const notFound = (what: string) => new WebhookApiError(404, "ERR_NOT_FOUND", `${what} not found`);
export const invalidInput = (message: string) => new WebhookApiError(400, "ERR_INVALID_INPUT", message);

/** `createWebhookApi` was given options it cannot serve with (thrown at once, before anything is mounted). */
export class InvalidApiOptionsError extends Error {
  override readonly name = "InvalidApiOptionsError";
  readonly code = "ERR_INVALID_API_OPTIONS";
}
