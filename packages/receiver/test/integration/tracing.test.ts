import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { signDelivery } from "@plant-store/sender";
import { generateWebhookSecret, parseTraceparent } from "@plant-store/types";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createNodeMiddleware } from "../../src/index.js";

// The official SDK registered in this test process, as an application would; the library only
// talks to @opentelemetry/api.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const token = "trace-receiver-token";
const secret = generateWebhookSecret();
const ATTEMPT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const seenInHandler: Array<{ traceparent: string | undefined; activeSpanId: string | undefined }> = [];
let failNext = false;
let origin: string;
let close: () => void;

beforeAll(async () => {
  const middleware = createNodeMiddleware({
    tokens: [token],
    secrets: [secret],
    onNewPlant: (_plant, delivery) => {
      seenInHandler.push({
        traceparent: delivery.traceparent,
        activeSpanId: trace.getActiveSpan()?.spanContext().spanId,
      });
      if (failNext) {
        failNext = false;
        throw new Error("the handler's database is down");
      }
    },
  });
  // Registered after the middleware was made, as an app that sets up tracing late would: the
  // receiver asks on every request, not once.
  provider.register();
  const server = createServer((req, res) => void middleware(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});

afterAll(async () => {
  close();
  await provider.shutdown();
  trace.disable();
  context.disable();
});

beforeEach(() => {
  exporter.reset();
  seenInHandler.length = 0;
});

async function post(webhookId: string, headers: Record<string, string> = {}): Promise<number> {
  const body = JSON.stringify({ id: 7, name: "Pilea" });
  const signed = signDelivery({ webhookId, body, secrets: [secret], token });
  const response = await fetch(`${origin}/plant/webhook`, {
    method: "POST",
    headers: { ...signed, ...headers },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

const span = (name: string) => exporter.getFinishedSpans().find((each) => each.name === name);

describe("the receiver's spans with an OpenTelemetry SDK registered", () => {
  it("makes verify a child of the sender's attempt and handle a child of verify, active while the handler runs", async () => {
    expect(await post("msg_traced", { traceparent: ATTEMPT })).toBe(200);
    const verify = span("verify");
    const handle = span("handle");
    const sent = parseTraceparent(ATTEMPT);
    expect(verify?.kind).toBe(SpanKind.SERVER);
    expect(verify?.spanContext().traceId).toBe(sent?.traceId);
    expect(verify?.parentSpanContext).toMatchObject({ spanId: sent?.parentId, isRemote: true });
    expect(handle?.spanContext().traceId).toBe(sent?.traceId);
    expect(handle?.parentSpanContext?.spanId).toBe(verify?.spanContext().spanId);
    expect(verify?.attributes["webhook.id"]).toBe("msg_traced");
    expect(handle?.attributes).toMatchObject({ "webhook.id": "msg_traced", "webhook.duplicate": false });
    expect(seenInHandler).toEqual([{ traceparent: ATTEMPT, activeSpanId: handle?.spanContext().spanId }]);

    exporter.reset();
    expect(await post("msg_traced", { traceparent: ATTEMPT })).toBe(200);
    expect(span("handle")?.attributes["webhook.duplicate"]).toBe(true);
  });

  it("starts a new trace for a request without a valid traceparent, and still answers 200", async () => {
    expect(await post("msg_untraced", { traceparent: "00-garbage" })).toBe(200);
    const verify = span("verify");
    expect(verify?.parentSpanContext).toBeUndefined();
    expect(span("handle")?.spanContext().traceId).toBe(verify?.spanContext().traceId);
    expect(seenInHandler[0]?.traceparent).toBeUndefined();
  });

  it("ends verify as an error with the refusal's status and code, and starts no handle span", async () => {
    const body = JSON.stringify({ id: 7, name: "Pilea" });
    const signed = signDelivery({ webhookId: "msg_forged", body, secrets: [generateWebhookSecret()], token });
    const response = await fetch(`${origin}/plant/webhook`, {
      method: "POST",
      headers: { ...signed, traceparent: ATTEMPT },
      body,
    });
    expect(response.status).toBe(401);
    const verify = span("verify");
    expect(verify?.status.code).toBe(SpanStatusCode.ERROR);
    expect(verify?.attributes).toMatchObject({
      "http.response.status_code": 401,
      "error.type": "ERR_INVALID_SIGNATURE",
    });
    expect(span("handle")).toBeUndefined();
    // Nothing secret is put on a span.
    expect(JSON.stringify(verify?.attributes)).not.toContain(token);
  });

  it("ends handle as an error when the handler throws, verify having passed", async () => {
    failNext = true;
    expect(await post("msg_handler_fails", { traceparent: ATTEMPT })).toBe(500);
    expect(span("verify")?.status.code).toBe(SpanStatusCode.UNSET);
    expect(span("handle")?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span("handle")?.attributes["http.response.status_code"]).toBe(500);
  });
});
