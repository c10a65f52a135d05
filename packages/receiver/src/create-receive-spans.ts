import {
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { OnceOutcome } from "./create-once-runner.js";
import type { Maybe } from "./maybe.js";
import type { ReceivedTraceparent } from "./read-traceparent.js";
import { isTracing, receiverTracer } from "./receiver-tracer.js";
import type { WebhookError } from "./webhook-error.js";

/** The spans of one received request: `verify` (the checks), then `handle` (the handler, once). */
export interface ReceiveSpans {
  /** The checks passed: ends `verify`. */
  verified(webhookId: string): void;
  /**
   * Runs the de-duplicated handler inside `handle`, a child of `verify`, active while the handler
   * runs. Untraced, it is `run()` itself: its answer (a promise or not) and its errors, thrown or not.
   */
  handle(webhookId: string, run: () => Maybe<OnceOutcome>): Maybe<OnceOutcome>;
  /** The request was refused (verify) or failed (handle): ends whichever span is open as an error. */
  failed(error: WebhookError): void;
}

function markFailed(span: Span, error: WebhookError): void {
  span.setAttributes({ "http.response.status_code": error.status, "error.type": error.code });
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** With no SDK registered: the handler runs as it is, in the caller's context. */
const UNTRACED: ReceiveSpans = {
  verified() {},
  handle: (_webhookId, run) => run(),
  failed() {},
};

/**
 * Starts `verify` (kind SERVER) for one request, a child of the sender's attempt when the request
 * carries a valid `traceparent`, a new trace otherwise. `handle` is its child: the handler runs
 * because verification passed, and the chain store → attempt → verify → handle reads as one path.
 */
export function createReceiveSpans(remote: ReceivedTraceparent | undefined): ReceiveSpans {
  if (!isTracing()) return UNTRACED;
  const incoming: Context =
    remote === undefined
      ? ROOT_CONTEXT
      : trace.setSpanContext(ROOT_CONTEXT, {
          traceId: remote.traceId,
          spanId: remote.parentId,
          traceFlags: remote.flags,
          isRemote: true,
        });
  const verify = receiverTracer.startSpan("verify", { kind: SpanKind.SERVER }, incoming);
  let open: Span | undefined = verify;
  return {
    verified(webhookId) {
      verify.setAttribute("webhook.id", webhookId);
      verify.end();
      open = undefined;
    },
    async handle(webhookId, run) {
      const span = receiverTracer.startSpan(
        "handle",
        { kind: SpanKind.INTERNAL, attributes: { "webhook.id": webhookId } },
        trace.setSpan(incoming, verify),
      );
      open = span;
      const outcome = await context.with(trace.setSpan(incoming, span), run);
      span.setAttribute("webhook.duplicate", outcome === "duplicate");
      span.end();
      open = undefined;
      return outcome;
    },
    failed(error) {
      if (open !== undefined) markFailed(open, error);
      open = undefined;
    },
  };
}
