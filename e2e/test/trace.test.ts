import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAppEvent } from "@plant-store/app-shell";
import { getFreeFixedPort, type RunningApp, resolveAppCli, spawnApp, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type CollectedSpan,
  type OtlpCollector,
  startOtlpCollector,
} from "./fixtures/start-otlp-collector.js";
import { addPlants, adminToken, startStore } from "./reliability/fixtures/pipe.js";

const receiverCli = resolveAppCli("plant-receiver", import.meta.url);
// Far longer than any test: spans reach the collector only through the flush on SIGTERM, so a
// process that exited without flushing would lose them and fail the test.
const exportEnv = {
  OTEL_BSP_SCHEDULE_DELAY: "600000",
  OTEL_SERVICE_NAME: undefined,
  OTEL_SDK_DISABLED: undefined,
};

/** The store's `delivery.attempted` event with this outcome. */
const attempted = (line: unknown, outcome: string) => {
  const event = readAppEvent(line);
  return event?.event === "delivery.attempted" && event.outcome === outcome;
};

describe("one trace from the store to the receiver's handler, both apps exporting OTLP/HTTP", () => {
  let collector: OtlpCollector;
  let dir: string;
  const apps: RunningApp[] = [];
  const token = "trace-e2e-token";
  const secret = generateWebhookSecret();

  beforeAll(async () => {
    collector = await startOtlpCollector();
  });
  afterAll(async () => {
    await collector.close();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.stop(5_000);
    rmSync(dir, { recursive: true, force: true });
  });

  const startReceiver = (port: number) =>
    spawnApp(
      "plant-receiver",
      receiverCli,
      [
        ...["--port", String(port), "--db", join(dir, "receiver.db"), "--token", token, "--secret", secret],
        ...["--otel-endpoint", collector.url],
      ],
      { env: exportEnv },
    );

  /** Subscribes a receiver through the running store's admin API (quicker than a CLI process). */
  async function subscribe(storeUrl: string, receiverUrl: string): Promise<void> {
    const response = await fetch(`${storeUrl}/endpoints`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${receiverUrl}/plant/webhook`, token, secret }),
    });
    expect(response.status).toBe(201);
  }

  /** The spans of the trace that holds the enqueue of `webhookId`. */
  function traceOf(webhookId: string): CollectedSpan[] {
    const enqueue = collector.spans.find(
      (span) => span.name === "enqueue" && span.attributes["webhook.id"] === webhookId,
    );
    if (!enqueue) throw new Error(`no enqueue span for ${webhookId}: ${JSON.stringify(collector.spans)}`);
    return collector.spans.filter((span) => span.traceId === enqueue.traceId);
  }

  const one = (spans: CollectedSpan[], name: string) => {
    const found = spans.filter((span) => span.name === name);
    expect(found.map((span) => span.name)).toEqual([name]);
    return found[0] as CollectedSpan;
  };

  it("links enqueue → attempt in the store to verify → handle in the receiver", async () => {
    dir = mkdtempSync(join(tmpdir(), "traces-e2e-"));
    const db = join(dir, "store.db");
    const receiver = await startReceiver(0);
    apps.push(receiver);
    const received: Array<Record<string, unknown>> = [];
    receiver.onLine((line) => {
      if (readAppEvent(line)?.event === "plant.stored") received.push(line);
    });
    const store = await startStore(["--db", db, "--otel-endpoint", collector.url], exportEnv);
    apps.push(store);
    await subscribe(store.url, receiver.url);
    const [webhookId] = await addPlants(store.url, 1, "Traced plant");
    await waitFor(() => store.lines.find((line) => attempted(line, "delivered")));
    expect(await store.stop()).toBe(0);
    expect(await receiver.stop()).toBe(0);

    const spans = traceOf(webhookId as string);
    const enqueue = one(spans, "enqueue");
    const attempt = one(spans, "attempt");
    const verify = one(spans, "verify");
    const handle = one(spans, "handle");
    // The plant was added through the admin API with no trace of its own: the trace starts at enqueue.
    expect(enqueue.parentSpanId).toBe("");
    expect(attempt.parentSpanId).toBe(enqueue.spanId);
    expect(verify.parentSpanId).toBe(attempt.spanId);
    expect(handle.parentSpanId).toBe(verify.spanId);
    expect(spans.map((span) => [span.name, span.service])).toEqual(
      expect.arrayContaining([
        ["enqueue", "plant-store"],
        ["attempt", "plant-store"],
        ["verify", "plant-receiver"],
        ["handle", "plant-receiver"],
      ]),
    );
    expect(attempt.attributes).toMatchObject({
      "webhook.id": webhookId,
      "webhook.attempt": 1,
      "http.response.status_code": 200,
    });
    expect(handle.attributes).toMatchObject({ "webhook.id": webhookId, "webhook.duplicate": false });
    // The receiver's log line names the trace, to go from a log to the trace.
    expect(received).toMatchObject([{ webhookId, traceId: enqueue.traceId }]);
    expect(collector.refused).toEqual([]);
  });

  it("keeps a retried delivery in the trace it was enqueued in: the receiver was down for the first attempt", async () => {
    dir = mkdtempSync(join(tmpdir(), "traces-e2e-retry-"));
    const db = join(dir, "store.db");
    // Listened on only after the first attempt failed: outside the range outgoing connections take ports from.
    const port = await getFreeFixedPort();
    const schedule = ["0", ...Array(20).fill("200ms")].join(",");
    const store = await startStore(
      ["--db", db, "--retry-schedule", schedule, "--otel-endpoint", collector.url],
      exportEnv,
    );
    apps.push(store);
    await subscribe(store.url, `http://127.0.0.1:${port}`);
    const [webhookId] = await addPlants(store.url, 1, "Retried plant");
    // Nothing listens on the port yet: the first attempt fails before the receiver starts.
    await waitFor(() => store.lines.find((line) => attempted(line, "retrying")));
    const receiver = await startReceiver(port);
    apps.push(receiver);
    await waitFor(() => store.lines.find((line) => attempted(line, "delivered")));
    expect(await store.stop()).toBe(0);
    expect(await receiver.stop()).toBe(0);

    const spans = traceOf(webhookId as string);
    const enqueue = one(spans, "enqueue");
    const attempts = spans
      .filter((span) => span.name === "attempt")
      .sort((a, b) => Number(a.attributes["webhook.attempt"]) - Number(b.attributes["webhook.attempt"]));
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    // Every attempt, the failed ones and the one that got through, is a child of the one enqueue.
    for (const attempt of attempts) expect(attempt.parentSpanId).toBe(enqueue.spanId);
    expect(attempts.map((attempt) => attempt.statusCode)).toEqual([...Array(attempts.length - 1).fill(2), 0]);
    expect(attempts[0]?.attributes["error.type"]).toBe("ECONNREFUSED");
    const verify = one(spans, "verify");
    expect(verify.parentSpanId).toBe(attempts.at(-1)?.spanId);
    expect(one(spans, "handle").parentSpanId).toBe(verify.spanId);
  });
});
