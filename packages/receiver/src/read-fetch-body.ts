import { BodyAlreadyConsumedError } from "./errors/body-already-consumed-error.js";
import { InvalidJsonError } from "./errors/invalid-json-error.js";
import { PayloadTooLargeError } from "./errors/payload-too-large-error.js";
import { RequestAbortedError } from "./errors/request-aborted-error.js";
import { RequestTimeoutError } from "./errors/request-timeout-error.js";

/**
 * The exact bytes of a fetch `Request`'s body, with a size limit (checked against `Content-Length`
 * first, then while reading) and a deadline; a body something else already read gets
 * `BodyAlreadyConsumedError`.
 */
export async function readFetchBody(request: Request, limit: number, timeoutMs: number): Promise<Uint8Array> {
  if (request.bodyUsed) throw new BodyAlreadyConsumedError();
  const lengthText = request.headers.get("content-length");
  const expected = lengthText === null || lengthText === "" ? undefined : Number.parseInt(lengthText, 10);
  if (expected !== undefined && expected > limit) throw new PayloadTooLargeError(limit);
  if (request.body === null) return new Uint8Array(0);

  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RequestTimeoutError(timeoutMs)), timeoutMs);
  });
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await Promise.race([reader.read(), deadline]);
      } catch (error) {
        if (error instanceof RequestTimeoutError) throw error;
        throw new RequestAbortedError(error);
      }
      if (step.done) break;
      received += step.value.length;
      if (received > limit) throw new PayloadTooLargeError(limit);
      chunks.push(step.value);
    }
  } catch (error) {
    reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (expected !== undefined && received !== expected) {
    throw new InvalidJsonError(new Error(`Body of ${received} bytes, Content-Length ${expected}`));
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const body = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return body;
}
