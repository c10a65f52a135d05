import type { IncomingMessage } from "node:http";
import getRawBody from "raw-body";
import { InternalReceiverError } from "./errors/internal-receiver-error.js";
import { InvalidJsonError } from "./errors/invalid-json-error.js";
import { PayloadTooLargeError } from "./errors/payload-too-large-error.js";
import { RequestAbortedError } from "./errors/request-aborted-error.js";
import { RequestTimeoutError } from "./errors/request-timeout-error.js";

export interface ReadRawBodyOptions {
  limit: number;
  timeoutMs: number;
}

/**
 * The exact bytes of the body, streamed with a size limit and a deadline. raw-body itself has no
 * timeout, and it leaves its promise pending when the socket closes without an `aborted` event, so
 * without the deadline a trickling or vanished client would hold the request open forever.
 */
export async function readRawBody(req: IncomingMessage, options: ReadRawBodyOptions): Promise<Buffer> {
  if (!req.readable) {
    // Something upstream (a body parser) consumed the stream: the signed bytes are gone.
    throw new InternalReceiverError(
      new Error("Request body already consumed; mount the router before body parsers"),
    );
  }
  const length = req.headers["content-length"];
  const reading = getRawBody(req, {
    limit: options.limit,
    // raw-body answers 413 before reading anything when Content-Length is over the limit.
    ...(length === undefined || length === "" ? {} : { length }),
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RequestTimeoutError(options.timeoutMs)), options.timeoutMs);
  });
  try {
    return await Promise.race([reading, deadline]);
  } catch (error) {
    if (error instanceof RequestTimeoutError) {
      // Stop buffering; the answer carries `Connection: close`, which ends the socket.
      req.pause();
      throw error;
    }
    const { type, code } = error as { type?: string; code?: string };
    if (type === "entity.too.large") throw new PayloadTooLargeError(options.limit, error);
    if (type === "request.size.invalid") throw new InvalidJsonError(error);
    if (type === "request.aborted" || code === "ECONNRESET") throw new RequestAbortedError(error);
    throw error;
  } finally {
    clearTimeout(timer);
    // The losing promise must not surface later as an unhandled rejection.
    reading.catch(() => undefined);
  }
}
