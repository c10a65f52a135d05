import { parseTraceparent } from "@plant-store/types";
import { describe, expect, it } from "vitest";
import { claimedDelivery } from "../../test/fixtures/claimed-delivery.js";
import { endAttemptSpan, startAttemptSpan } from "./trace-attempt.js";

// No OpenTelemetry SDK is registered in this file: the API's spans record nothing.
const STORED = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("startAttemptSpan without an OpenTelemetry SDK", () => {
  it("sends the context stored with the message, so the receiver still joins the enqueue's trace", () => {
    const { span, traceparent } = startAttemptSpan(claimedDelivery(1, 1, { traceparent: STORED }));
    expect(traceparent).toBe(STORED);
    expect(span.isRecording()).toBe(false);
    endAttemptSpan(span, {
      status: 200,
      error: null,
      startedAt: new Date(),
      durationMs: 1,
      responseBody: "",
    });
  });

  it("gives a message queued before traces were kept one trace of its own, the same on every attempt", () => {
    const first = startAttemptSpan(claimedDelivery(1, 1, { webhookId: "msg_old" })).traceparent;
    const retry = startAttemptSpan(
      claimedDelivery(1, 1, { webhookId: "msg_old", attemptCount: 3 }),
    ).traceparent;
    const other = startAttemptSpan(claimedDelivery(2, 1, { webhookId: "msg_other" })).traceparent;
    expect(parseTraceparent(first)).toMatchObject({ flags: 1 });
    expect(retry).toBe(first);
    expect(parseTraceparent(other)?.traceId).not.toBe(parseTraceparent(first)?.traceId);
  });

  it("sends a stored later version's context as version 00, its extra fields left out", () => {
    const later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future";
    expect(startAttemptSpan(claimedDelivery(1, 1, { traceparent: later })).traceparent).toBe(STORED);
  });

  it("treats a stored value that is not a valid traceparent like a missing one", () => {
    const broken = startAttemptSpan(claimedDelivery(1, 1, { webhookId: "msg_x", traceparent: "00-zz" }));
    const missing = startAttemptSpan(claimedDelivery(1, 1, { webhookId: "msg_x" }));
    expect(broken.traceparent).toBe(missing.traceparent);
    // Version 00 allows no fields after the flags.
    const extra = startAttemptSpan(claimedDelivery(1, 1, { webhookId: "msg_x", traceparent: `${STORED}-x` }));
    expect(extra.traceparent).toBe(missing.traceparent);
  });
});
