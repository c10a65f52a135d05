import { createHash } from "node:crypto";
import {
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { formatTraceparent, parseTraceparent, type Traceparent } from "@plant-store/types";
import type { AttemptResult } from "../attempt-result.js";
import type { ClaimedDelivery } from "../outbox.js";
import { senderTracer } from "./sender-tracer.js";

/**
 * A message queued before traces were stored has none: one derived from its webhook id keeps all
 * its attempts in one trace all the same.
 */
function derivedParent(webhookId: string): Traceparent {
  const hex = createHash("sha256").update(webhookId).digest("hex");
  return { traceId: hex.slice(0, 32), parentId: hex.slice(32, 48), flags: 1 };
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Starts the `attempt` span of one delivery attempt, a child of the context stored with the message
 * at enqueue (never of whatever span happens to be active in the worker), and answers the
 * `traceparent` to send: this span's, or the stored one when no SDK records spans.
 */
export function startAttemptSpan(delivery: ClaimedDelivery): { span: Span; traceparent: string } {
  const parsed = parseTraceparent(delivery.traceparent);
  const stored = parsed ?? derivedParent(delivery.webhookId);
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: stored.traceId,
    spanId: stored.parentId,
    traceFlags: stored.flags,
    isRemote: true,
  });
  const span = senderTracer.startSpan("attempt", { kind: SpanKind.CLIENT }, parent);
  // Without an SDK the span records nothing: no attributes built, no URL parsed per attempt.
  if (span.isRecording()) {
    const host = hostOf(delivery.endpoint.url);
    span.setAttributes({
      "webhook.id": delivery.webhookId,
      "webhook.message_id": delivery.messageId,
      "webhook.delivery_id": delivery.id,
      "webhook.endpoint_id": delivery.endpointId,
      "webhook.attempt": delivery.attemptCount + 1,
      "http.request.method": "POST",
      ...(host === undefined ? {} : { "server.address": host }),
    });
  }
  const own = span.spanContext();
  // With no SDK the span is the parent's context itself: the header to send is the stored one, which
  // parsed as version 00 (it would be written back the same), so it is not formatted and checked again
  // at every attempt. A later version's value is written back as version 00.
  if (
    parsed !== undefined &&
    delivery.traceparent?.startsWith("00-") === true &&
    own.traceId === stored.traceId &&
    own.spanId === stored.parentId &&
    own.traceFlags === stored.flags
  )
    return { span, traceparent: delivery.traceparent };
  const traceparent = formatTraceparent(
    isSpanContextValid(own) ? { traceId: own.traceId, parentId: own.spanId, flags: own.traceFlags } : stored,
  );
  return { span, traceparent };
}

/** Ends an `attempt` span with what the receiver answered (a status other than 2xx is an error). */
export function endAttemptSpan(span: Span, result: AttemptResult): void {
  if (result.status !== null) span.setAttribute("http.response.status_code", result.status);
  const failed =
    result.error !== null || result.status === null || result.status < 200 || result.status > 299;
  if (failed) {
    span.setAttribute("error.type", result.error ?? String(result.status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
