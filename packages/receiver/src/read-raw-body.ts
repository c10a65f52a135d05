import type { IncomingMessage } from "node:http";
import { BodyAlreadyConsumedError } from "./errors/body-already-consumed-error.js";
import { InvalidJsonError } from "./errors/invalid-json-error.js";
import { PayloadTooLargeError } from "./errors/payload-too-large-error.js";
import { RequestAbortedError } from "./errors/request-aborted-error.js";
import { RequestTimeoutError } from "./errors/request-timeout-error.js";

export interface ReadRawBodyOptions {
  limit: number;
  timeoutMs: number;
  /** The request's `Content-Length`, when the caller has already read it from the headers. */
  contentLength?: string | undefined;
}

/**
 * The exact bytes of the body, read straight from the request with a size limit and a deadline.
 * A trickling client gets `RequestTimeoutError`; one that goes away mid-body (with or without an
 * `aborted` event) gets `RequestAbortedError`, so no request is ever left pending.
 */
export async function readRawBody(req: IncomingMessage, options: ReadRawBodyOptions): Promise<Buffer> {
  if (!req.readable || req.readableEncoding !== null) {
    // Something upstream (a body parser) consumed or decoded the stream: the signed bytes are gone.
    throw new BodyAlreadyConsumedError();
  }
  const { limit } = options;
  const lengthText = options.contentLength ?? req.headers["content-length"];
  const expected =
    lengthText === undefined || lengthText === "" ? undefined : Number.parseInt(lengthText, 10);
  // Refused before reading anything: the client announced too much.
  if ((expected ?? 0) > limit) throw new PayloadTooLargeError(limit);
  // Stryker disable next-line ConditionalExpression: equivalent: undefined > 0 is false; the first test only spells out why
  if (expected !== undefined && expected > 0) {
    // A body that came in the same packets as the headers is parsed in the same turn as they were,
    // after the request's handler started: one microtask later it is all buffered. Node's parser
    // never buffers more than Content-Length bytes for one request, so this many bytes are the
    // whole body, taken at once, without a deadline timer and five listeners per request.
    await undefined;
    if (req.readableLength === expected) {
      const body = req.read(expected) as Buffer;
      // The request then ends as a streamed one does: `end` and `close` still reach whoever listens.
      req.resume();
      return body;
    }
  }
  // Gone in between (a reset is reported before the turn ends): no event will tell the listeners.
  if (req.destroyed) throw new RequestAbortedError(new Error("request closed before its body was read"));
  return readStreaming(req, limit, expected, options.timeoutMs);
}

function readStreaming(
  req: IncomingMessage,
  limit: number,
  expected: number | undefined,
  timeoutMs: number,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let received = 0;
    let settled = false;

    const stop = () => {
      req.removeListener("data", onData);
      req.removeListener("end", onEnd);
      req.removeListener("aborted", onAborted);
      req.removeListener("close", onClose);
      req.removeListener("error", onError);
    };
    const fail = (error: Error) => {
      // Stryker disable next-line ConditionalExpression,BooleanLiteral: equivalent: the first verdict unsubscribes every handler and clears the timer, so nothing calls fail() again; the guard only makes a second verdict impossible by construction
      if (settled) return;
      // Stryker disable next-line BooleanLiteral: equivalent, see above
      settled = true;
      clearTimeout(timer);
      stop();
      // Stop buffering; the error answer carries `Connection: close`, which ends the socket.
      req.pause();
      reject(error);
    };
    // Unsubscribed by fail(), and no data follows `end`: no check for a verdict needed here.
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        fail(new PayloadTooLargeError(limit));
        return;
      }
      if (first === undefined) first = chunk;
      else if (chunks === undefined) chunks = [first, chunk];
      else chunks.push(chunk);
    };
    const onEnd = () => {
      if (expected !== undefined && received !== expected) {
        fail(new InvalidJsonError(new Error(`Body of ${received} bytes, Content-Length ${expected}`)));
        return;
      }
      // Stryker disable next-line BooleanLiteral: equivalent from outside: without it the `close` that follows every complete body would reject a promise already resolved (a no-op)
      settled = true;
      clearTimeout(timer);
      resolve(chunks === undefined ? (first ?? Buffer.alloc(0)) : Buffer.concat(chunks, received));
    };
    // Errors are built only when they happen: `close` also follows every complete body.
    const onAborted = () => {
      // Stryker disable next-line ConditionalExpression: equivalent from outside, as for `settled = true` in onEnd
      if (!settled) fail(new RequestAbortedError(new Error("request aborted")));
    };
    // `close` before `end`: the connection went away without Node reporting an abort.
    const onClose = () => {
      // Stryker disable next-line ConditionalExpression: equivalent from outside, as for `settled = true` in onEnd
      if (!settled) fail(new RequestAbortedError(new Error("connection closed before the body ended")));
    };
    const onError = (error: Error & { code?: string }) =>
      fail(
        error.code === "ECONNRESET" || error.code === "ECONNABORTED" ? new RequestAbortedError(error) : error,
      );
    // Cleared by both verdicts, so it only ever fires while the body is still being read.
    const timer = setTimeout(() => fail(new RequestTimeoutError(timeoutMs)), timeoutMs);

    req.on("data", onData);
    req.on("end", onEnd);
    req.on("aborted", onAborted);
    req.on("close", onClose);
    req.on("error", onError);
  });
}
