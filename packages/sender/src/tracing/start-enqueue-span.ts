import { context, isSpanContextValid, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { formatTraceparent } from "@plant-store/types";
import type { EnqueueResult } from "../outbox.js";
import { newTraceparent } from "./new-traceparent.js";
import { senderTracer } from "./sender-tracer.js";

/** One message's `enqueue` span, with the context to store beside the message. */
export interface EnqueueSpan {
  /** This span's context, or a fresh one when no SDK records it: every delivery carries a valid header. */
  traceparent: string;
  end(result: EnqueueResult): void;
  fail(error: unknown): void;
}

/** Starts the `enqueue` span of one message, a child of the caller's active span when there is one. */
export function startEnqueueSpan(webhookId: string): EnqueueSpan {
  const span = senderTracer.startSpan(
    "enqueue",
    { kind: SpanKind.PRODUCER, attributes: { "webhook.id": webhookId } },
    context.active(),
  );
  const own = span.spanContext();
  return {
    traceparent: isSpanContextValid(own)
      ? formatTraceparent({ traceId: own.traceId, parentId: own.spanId, flags: own.traceFlags })
      : newTraceparent(),
    end(result) {
      span.setAttributes({
        "webhook.id": result.webhookId,
        "webhook.message_id": result.messageId,
        "webhook.duplicate": result.duplicate,
        "webhook.deliveries": result.deliveries,
      });
      span.end();
    },
    fail(error) {
      const code = (error as { code?: unknown }).code;
      span.setAttribute("error.type", typeof code === "string" ? code : "Error");
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
