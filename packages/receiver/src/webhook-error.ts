/**
 * Base of every answer the receiver refuses. `message` is safe to send to the caller: it never
 * contains tokens, secrets or signatures. `headers` are added to the error answer (e.g. `Allow`).
 */
export class WebhookError extends Error {
  override readonly name: string = "WebhookError";
  readonly status: number;
  readonly code: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.headers = options.headers ?? {};
  }

  /** The spec's `Error` body. */
  toJSON(): { error: number; message: string } {
    return { error: this.status, message: this.message };
  }
}
