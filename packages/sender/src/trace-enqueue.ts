import type { EnqueueResult } from "./outbox.js";
import { startEnqueueSpan } from "./start-enqueue-span.js";

/**
 * Runs one enqueue inside an `enqueue` span (a child of the caller's active span when there is one)
 * and hands `run` the `traceparent` to store with the message. Works for the synchronous SQLite
 * enqueue and the asynchronous PostgreSQL one alike.
 */
export function traceEnqueue<R extends EnqueueResult | Promise<EnqueueResult>>(
  webhookId: string,
  run: (traceparent: string) => R,
): R {
  const span = startEnqueueSpan(webhookId);
  let result: R;
  try {
    result = run(span.traceparent);
  } catch (error) {
    span.fail(error);
    throw error;
  }
  if (result instanceof Promise)
    return result.then(
      (value) => {
        span.end(value);
        return value;
      },
      (error: unknown) => {
        span.fail(error);
        throw error;
      },
    ) as R;
  span.end(result as EnqueueResult);
  return result;
}
