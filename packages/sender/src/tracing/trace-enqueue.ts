import type { EnqueueResult } from "../outbox.js";
import { startEnqueueSpan } from "./start-enqueue-span.js";

/**
 * Runs one enqueue call inside an `enqueue` span per message (each a child of the caller's active span
 * when there is one) and hands `run` the `traceparent` to store with each message. Works for the
 * synchronous SQLite enqueue and the asynchronous one alike; a failed call fails every span.
 */
export function traceEnqueue<R extends EnqueueResult[] | Promise<EnqueueResult[]>>(
  webhookIds: readonly string[],
  run: (traceparents: string[]) => R,
): R {
  const spans = webhookIds.map((webhookId) => startEnqueueSpan(webhookId));
  const fail = (error: unknown) => {
    for (const span of spans) span.fail(error);
  };
  const end = (results: EnqueueResult[]) => {
    spans.forEach((span, index) => {
      const result = results[index];
      if (result) span.end(result);
    });
    return results;
  };
  let result: R;
  try {
    result = run(spans.map((span) => span.traceparent));
  } catch (error) {
    fail(error);
    throw error;
  }
  if (result instanceof Promise)
    return result.then(end, (error: unknown) => {
      fail(error);
      throw error;
    }) as R;
  return end(result as EnqueueResult[]) as R;
}
