import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-node";
import { startTestReceiver, type TestReceiver, waitFor } from "@plant-store/testing";
import { generateWebhookSecret, parseTraceparent } from "@plant-store/types";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRetryPolicy, createSsrfGuard, createWorker, WebhookIdTakenError } from "../../src/index.js";
import { createSqliteOutbox, type SqliteOutbox } from "../../src/sqlite.js";
import { traceEnqueue } from "../../src/tracing/trace-enqueue.js";

// The official SDK registered in this test process, as an application would: the library itself
// only ever talks to @opentelemetry/api.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);
const spanId = (span: ReadableSpan | undefined) => span?.spanContext().spanId;

describe("the sender's spans with an OpenTelemetry SDK registered", () => {
  let dir: string;
  let outbox: SqliteOutbox;
  let receiver: TestReceiver;
  const token = "trace-token-123";
  const secret = generateWebhookSecret();

  beforeEach(async () => {
    exporter.reset();
    dir = mkdtempSync(join(tmpdir(), "sender-tracing-"));
    outbox = createSqliteOutbox(join(dir, "store.db"));
    receiver = await startTestReceiver();
  });

  afterEach(async () => {
    await receiver.close();
    await outbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("makes enqueue a child of the caller's span, and every attempt, retries included, a child of enqueue named by the traceparent it sends", async () => {
    const endpoint = await outbox.addEndpoint({
      url: `${receiver.url}/plant/webhook`,
      token,
      secrets: [secret],
    });
    let calls = 0;
    receiver.respond((_request, response) => {
      calls += 1;
      response.writeHead(calls === 1 ? 503 : 200).end();
    });
    const queued = await trace.getTracer("test").startActiveSpan("add plant", async (span) => {
      try {
        return await outbox.enqueue({ payload: { id: 1, name: "Monstera" } });
      } finally {
        span.end();
      }
    });
    const worker = createWorker({
      outbox,
      policy: createRetryPolicy({ schedule: "0,20ms", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      pollIntervalMs: 25,
    });
    worker.start();
    try {
      await waitFor(async () =>
        (await outbox.listDeliveries({ status: "delivered" })).length ? true : undefined,
      );
    } finally {
      await worker.stop();
    }

    const [caller] = named("add plant");
    const [enqueue] = named("enqueue");
    const attempts = named("attempt").sort(
      (a, b) => Number(a.attributes["webhook.attempt"]) - Number(b.attributes["webhook.attempt"]),
    );
    expect(enqueue?.kind).toBe(SpanKind.PRODUCER);
    expect(enqueue?.parentSpanContext?.spanId).toBe(spanId(caller));
    expect(enqueue?.attributes).toMatchObject({
      "webhook.id": queued.webhookId,
      "webhook.message_id": queued.messageId,
      "webhook.deliveries": 1,
      "webhook.duplicate": false,
    });
    const traceId = caller?.spanContext().traceId;
    // What is stored with the message is the enqueue span's context.
    expect(parseTraceparent((await outbox.getMessage(queued.messageId))?.traceparent)).toEqual({
      traceId,
      parentId: spanId(enqueue),
      flags: 1,
    });

    expect(attempts).toHaveLength(2);
    expect(attempts.map((span) => span.kind)).toEqual([SpanKind.CLIENT, SpanKind.CLIENT]);
    expect(attempts.map((span) => span.spanContext().traceId)).toEqual([traceId, traceId]);
    expect(attempts.map((span) => span.parentSpanContext?.spanId)).toEqual([
      spanId(enqueue),
      spanId(enqueue),
    ]);
    expect(attempts.map((span) => span.attributes)).toMatchObject([
      {
        "webhook.id": queued.webhookId,
        "webhook.endpoint_id": endpoint.id,
        "webhook.attempt": 1,
        "http.response.status_code": 503,
        "error.type": "503",
      },
      {
        "webhook.id": queued.webhookId,
        "webhook.endpoint_id": endpoint.id,
        "webhook.attempt": 2,
        "http.response.status_code": 200,
      },
    ]);
    expect(attempts.map((span) => span.status.code)).toEqual([SpanStatusCode.ERROR, SpanStatusCode.UNSET]);

    // Each request names its own attempt span as the parent, in the one trace.
    const sent = receiver.requests.map((request) => parseTraceparent(String(request.headers.traceparent)));
    expect(sent).toEqual(attempts.map((span) => ({ traceId, parentId: spanId(span), flags: 1 })));

    // Nothing secret is ever put on a span.
    const values = JSON.stringify(exporter.getFinishedSpans().map((span) => span.attributes));
    expect(values).not.toContain(token);
    expect(values).not.toContain(secret);
  });

  it("ends a refused enqueue's span as an error with the error's code", async () => {
    await outbox.enqueue({ payload: { id: 1, name: "One" }, webhookId: "msg_taken" });
    expect(() => outbox.enqueueSync({ payload: { id: 2, name: "Two" }, webhookId: "msg_taken" })).toThrow(
      WebhookIdTakenError,
    );
    const [, refused] = named("enqueue");
    expect(refused?.status.code).toBe(SpanStatusCode.ERROR);
    expect(refused?.attributes["error.type"]).toBe("ERR_WEBHOOK_ID_TAKEN");
  });

  it("gives each message of a batch (enqueueMany) its own enqueue span under the caller's, failing all when the batch fails", async () => {
    const results = await trace.getTracer("test").startActiveSpan("add plants", async (span) => {
      try {
        return await traceEnqueue(["msg_a", "msg_b"], async (traceparents) =>
          traceparents.map((_traceparent, index) => ({
            messageId: index + 1,
            webhookId: index === 0 ? "msg_a" : "msg_b",
            duplicate: false,
            deliveries: 1,
          })),
        );
      } finally {
        span.end();
      }
    });
    expect(results).toHaveLength(2);
    const [caller] = named("add plants");
    expect(
      named("enqueue").map((span) => [span.attributes["webhook.id"], span.parentSpanContext?.spanId]),
    ).toEqual([
      ["msg_a", spanId(caller)],
      ["msg_b", spanId(caller)],
    ]);
    exporter.reset();
    const down = new Error("database down");
    await expect(traceEnqueue(["msg_c", "msg_d"], async () => Promise.reject(down))).rejects.toBe(down);
    expect(named("enqueue").map((span) => span.status.code)).toEqual([
      SpanStatusCode.ERROR,
      SpanStatusCode.ERROR,
    ]);
  });
});
