import { context, isSpanContextValid, type Span, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { formatTraceparent } from "@plant-store/types";
import { newTraceparent } from "./new-traceparent.js";
import type { EnqueueResult } from "./outbox.js";
import { senderTracer } from "./sender-tracer.js";

function end(span: Span, result: EnqueueResult): void {
  span.setAttributes({
    "webhook.id": result.webhookId,
    "webhook.message_id": result.messageId,
    "webhook.duplicate": result.duplicate,
    "webhook.deliveries": result.deliveries,
  });
  span.end();
}

function fail(span: Span, error: unknown): never {
  const code = (error as { code?: unknown }).code;
  span.setAttribute("error.type", typeof code === "string" ? code : "Error");
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  throw error;
}

/**
 * Runs one enqueue inside an `enqueue` span, a child of the caller's active span when there is one,
 * and hands `run` the `traceparent` to store with the message: this span's context, or a fresh one
 * when no SDK records it, so every delivery of the message carries a valid header.
 */
export function traceEnqueue<R extends EnqueueResult | Promise<EnqueueResult>>(
  webhookId: string,
  run: (traceparent: string) => R,
): R {
  const span = senderTracer.startSpan(
    "enqueue",
    { kind: SpanKind.PRODUCER, attributes: { "webhook.id": webhookId } },
    context.active(),
  );
  const own = span.spanContext();
  const traceparent = isSpanContextValid(own)
    ? formatTraceparent({ traceId: own.traceId, parentId: own.spanId, flags: own.traceFlags })
    : newTraceparent();
  let result: R;
  try {
    result = run(traceparent);
  } catch (error) {
    fail(span, error);
  }
  if (result instanceof Promise)
    return result.then(
      (value) => {
        end(span, value);
        return value;
      },
      (error: unknown) => fail(span, error),
    ) as R;
  end(span, result as EnqueueResult);
  return result;
}
