import type { EnqueueResult } from "./outbox.js";
import { startEnqueueSpan } from "./start-enqueue-span.js";

/**
 * `traceEnqueue` for a batch queued in one statement: one `enqueue` span and one stored
 * `traceparent` per message (each its own trace, or a child of the caller's active span), all ended
 * with the batch; a failed batch fails every span.
 */
export async function traceEnqueueMany(
  webhookIds: readonly string[],
  run: (traceparents: string[]) => Promise<EnqueueResult[]>,
): Promise<EnqueueResult[]> {
  const spans = webhookIds.map((webhookId) => startEnqueueSpan(webhookId));
  let results: EnqueueResult[];
  try {
    results = await run(spans.map((span) => span.traceparent));
  } catch (error) {
    for (const span of spans) span.fail(error);
    throw error;
  }
  spans.forEach((span, index) => {
    const result = results[index];
    if (result) span.end(result);
  });
  return results;
}
