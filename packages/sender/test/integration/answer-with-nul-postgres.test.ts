import {
  startPostgres,
  startTestReceiver,
  type TestPostgres,
  type TestReceiver,
  waitFor,
} from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createRetryPolicy,
  createSsrfGuard,
  createWorker,
  type Outbox,
  type Worker,
} from "../../src/index.js";
import { createPostgresOutbox } from "../../src/postgres.js";
import { enqueuePlant } from "../fixtures/enqueue-plant.js";

// PostgreSQL text refuses NUL (`invalid byte sequence for encoding "UTF8": 0x00`): an attempt whose
// recorded answer held one could never be written, so its delivery stayed pending with no attempt
// and was sent again at every lease's end, forever.
const answer = (what: string) =>
  Buffer.concat([Buffer.from(`${what}\u0000 and `), Buffer.from([0xff, 0x00])]);

describe("a receiver answering with NUL bytes, recorded on PostgreSQL", () => {
  let postgres: TestPostgres;
  let receiver: TestReceiver;
  let outbox: Outbox;
  let worker: Worker;

  beforeAll(async () => {
    postgres = await startPostgres();
    receiver = await startTestReceiver();
    receiver.respond((request, response) => {
      const down = request.body.includes("Down fern");
      response.writeHead(down ? 503 : 200, { "content-type": "application/octet-stream" });
      response.end(answer(down ? "down" : "ok"));
    });
    outbox = await createPostgresOutbox(await postgres.createDatabase());
    await outbox.addEndpoint({
      url: `${receiver.url}/plant/webhook`,
      token: "nul-answer-token",
      secrets: [generateWebhookSecret()],
    });
    worker = createWorker({
      outbox,
      policy: createRetryPolicy({ schedule: "0,20ms", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      pollIntervalMs: 50,
      // An attempt that cannot be recorded leaves its delivery pending for ever (the waits below time out)
      // and sends it again at each lease's end. Long enough that a loaded machine taking over a second
      // to record an attempt does not see its lease end first and send it a legitimate third time.
      leaseMs: 10_000,
    });
    worker.start();
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await outbox?.close();
    await receiver?.close();
    await postgres?.stop();
  });

  it("records a 200 as delivered and a 503 as retried, then failed, each answer kept as text without NUL", async () => {
    const ok = await enqueuePlant(outbox, { name: "Answered ivy" });
    const down = await enqueuePlant(outbox, { name: "Down fern" });
    const okId = ok.deliveries[0]?.id as number;
    const downId = down.deliveries[0]?.id as number;
    const settled = async (id: number, status: string) =>
      (await outbox.getDelivery(id))?.status === status ? true : undefined;
    await waitFor(() => settled(okId, "delivered"), 20_000);
    await waitFor(() => settled(downId, "failed"), 20_000);

    const [delivered] = await outbox.listAttempts(okId);
    // NUL and the byte that is not UTF-8 both read as U+FFFD: the excerpt is text, whatever came.
    expect(delivered).toMatchObject({ status: 200, responseBody: "ok\uFFFD and \uFFFD\uFFFD" });
    const failed = await outbox.listAttempts(downId);
    expect(failed.map((attempt) => [attempt.attempt, attempt.status, attempt.responseBody])).toEqual([
      [1, 503, "down\uFFFD and \uFFFD\uFFFD"],
      [2, 503, "down\uFFFD and \uFFFD\uFFFD"],
    ]);
    // Sent exactly as often as recorded: no attempt was lost and sent again.
    expect(receiver.requests).toHaveLength(3);
  }, 30_000);
});
