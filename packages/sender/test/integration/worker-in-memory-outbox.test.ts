import { startTestReceiver, waitFor } from "@plant-store/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { AttemptEvent } from "../../src/attempt-event.js";
import { createRetryPolicy, createSsrfGuard, createWorker } from "../../src/index.js";
import { recordingLogger } from "../fixtures/claimed-delivery.js";
import { createMemoryOutbox } from "../fixtures/memory-outbox.js";

// The worker's parts wired together, against a real receiver and an in-memory outbox: what the
// worker itself does, apart from any store.
describe("a worker over an in-memory outbox", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("reports and logs each attempt with its message id and the worker's id", async () => {
    const receiver = await startTestReceiver();
    cleanups.push(() => receiver.close());
    const outbox = createMemoryOutbox();
    const logger = recordingLogger();
    const events: AttemptEvent[] = [];
    const worker = createWorker({
      outbox,
      logger,
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      onAttempt: (event) => events.push(event),
      retention: false,
    });
    worker.start();
    cleanups.push(() => worker.stop());

    const id = outbox.add(3, `${receiver.url}/hook`, 42);
    const [event] = await waitFor(() => (events.length > 0 ? events : undefined), 10_000);
    expect(event).toMatchObject({
      deliveryId: id,
      messageId: 42,
      endpointId: 3,
      attempt: 1,
      outcome: "delivered",
    });
    expect(event).not.toHaveProperty("plantId");
    const line = logger.lines.find((logged) => logged.message === "delivery attempt");
    expect(line?.fields).toMatchObject({ deliveryId: id, messageId: 42, workerId: worker.id, status: 200 });
    expect(outbox.recorded).toMatchObject([{ deliveryId: id, workerId: worker.id, result: { status: 200 } }]);
  });

  it("attempts a retry when it comes due, without waiting for the poll", async () => {
    const receiver = await startTestReceiver();
    cleanups.push(() => receiver.close());
    let calls = 0;
    receiver.respond((_request, response) => {
      calls += 1;
      response.writeHead(calls === 1 ? 503 : 200).end();
    });
    const outbox = createMemoryOutbox();
    const events: AttemptEvent[] = [];
    const worker = createWorker({
      outbox,
      policy: createRetryPolicy({ schedule: "0,200ms", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      // Only the retry timer can bring the second attempt within the test's time.
      pollIntervalMs: 3_600_000,
      onAttempt: (event) => events.push(event),
      retention: false,
    });
    worker.start();
    cleanups.push(() => worker.stop());

    outbox.add(1, `${receiver.url}/hook`);
    await waitFor(() => (events.length >= 2 ? events : undefined), 10_000);
    expect(events.map((event) => event.outcome)).toEqual(["retrying", "delivered"]);
    expect(calls).toBe(2);
  });

  it("keeps a hanging endpoint to its slots while another endpoint's deliveries flow, and stops cleanly", async () => {
    const receiver = await startTestReceiver();
    cleanups.push(() => receiver.close());
    const hanging: Array<() => void> = [];
    receiver.respond((request, response) => {
      if (request.path === "/slow") hanging.push(() => response.writeHead(200).end());
      else response.writeHead(200).end();
    });
    const outbox = createMemoryOutbox();
    const events: AttemptEvent[] = [];
    const worker = createWorker({
      outbox,
      concurrency: 4,
      perEndpointConcurrency: 1,
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      onAttempt: (event) => events.push(event),
      retention: false,
    });
    worker.start();

    const slow = [1, 2, 3].map(() => outbox.add(1, `${receiver.url}/slow`));
    const fast = [1, 2, 3, 4, 5, 6].map(() => outbox.add(2, `${receiver.url}/fast`));
    await waitFor(() => (events.length >= fast.length ? events : undefined), 10_000);
    expect(events.map((event) => event.deliveryId).sort()).toEqual(fast);
    expect(receiver.requests.filter((request) => request.path === "/slow")).toHaveLength(1);

    const stopping = worker.stop();
    // stop() waits for the attempt in flight; the hanging endpoint answers, and nothing more starts.
    await waitFor(() => (hanging.length > 0 ? hanging : undefined), 10_000);
    for (const answer of hanging) answer();
    await stopping;
    expect(worker.inFlight).toBe(0);
    expect(events.map((event) => event.deliveryId)).toContain(slow[0]);
    expect(receiver.requests.filter((request) => request.path === "/slow")).toHaveLength(1);
  });

  it("gives back unattempted, on stop, what was claimed and still waited for its endpoint's slot", async () => {
    const receiver = await startTestReceiver();
    cleanups.push(() => receiver.close());
    const hanging: Array<() => void> = [];
    receiver.respond((_request, response) => {
      hanging.push(() => response.writeHead(200).end());
    });
    const outbox = createMemoryOutbox();
    const events: AttemptEvent[] = [];
    const worker = createWorker({
      outbox,
      concurrency: 4,
      perEndpointConcurrency: 2,
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      onAttempt: (event) => events.push(event),
      retention: false,
    });
    worker.start();

    const first = outbox.add(1, `${receiver.url}/slow`);
    await receiver.waitForRequests(1, 10_000);
    // The endpoint has one slot left, and a claim may still bring two of its deliveries: one waits.
    const second = outbox.add(1, `${receiver.url}/slow`, undefined, false);
    const third = outbox.add(1, `${receiver.url}/slow`, undefined, false);
    worker.wake();
    await receiver.waitForRequests(2, 10_000);
    expect(worker.inFlight).toBe(2);

    const stopping = worker.stop();
    for (const answer of hanging) answer();
    await stopping;
    expect(outbox.released).toEqual([third]);
    expect(events.map((event) => event.deliveryId).sort()).toEqual([first, second]);
    expect(receiver.requests).toHaveLength(2);
  });
});
