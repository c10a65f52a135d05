import { afterEach, describe, expect, it, vi } from "vitest";
import { claimedDelivery, deferred, recordingLogger } from "../../test/fixtures/claimed-delivery.js";
import type {
  AttemptReport,
  ClaimedDelivery,
  ClaimRequest,
  RecordedAttempt,
  RecordOptions,
  RecordResult,
} from "../outbox.js";
import { createRetryPolicy } from "../retry/create-retry-policy.js";
import { createClaimLoop, ROUND_TRIP_TURNS } from "./create-claim-loop.js";
import { createEndpointSlots } from "./create-endpoint-slots.js";

type Call =
  | { kind: "claim"; request: ClaimRequest; answer: ReturnType<typeof deferred<ClaimedDelivery[]>> }
  | {
      kind: "record";
      reports: readonly AttemptReport[];
      options: RecordOptions;
      answer: ReturnType<typeof deferred<RecordResult>>;
    };

/** The outbox's three worker methods in memory: every call waits for the test to answer it. */
function fakeOutbox() {
  const calls: Call[] = [];
  const released: number[] = [];
  let open = 0;
  let mostAtOnce = 0;
  const track = <T>(promise: Promise<T>) => {
    open += 1;
    mostAtOnce = Math.max(mostAtOnce, open);
    return promise.finally(() => {
      open -= 1;
    });
  };
  return {
    calls,
    released,
    mostAtOnce: () => mostAtOnce,
    claimDue(request: ClaimRequest) {
      const answer = deferred<ClaimedDelivery[]>();
      calls.push({ kind: "claim", request, answer });
      return track(answer.promise);
    },
    recordAttempts(reports: readonly AttemptReport[], options: RecordOptions) {
      const answer = deferred<RecordResult>();
      calls.push({ kind: "record", reports, options, answer });
      return track(answer.promise);
    },
    async release(deliveryIds: readonly number[]) {
      released.push(...deliveryIds);
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const policy = createRetryPolicy();
const report = (deliveryId: number): AttemptReport => ({
  deliveryId,
  workerId: "w1",
  result: { startedAt: new Date(), durationMs: 1, status: 200, error: null, responseBody: "" },
});
const stored = (attempt: number): RecordedAttempt => ({ held: true, attempt, outcome: "delivered" });

// One turn a round trip unless a test says otherwise: the tests step the loop turn by turn.
function setUp(concurrency = 4, perEndpoint = 2, claimAhead = 0, turns = 1) {
  const outbox = fakeOutbox();
  const started: number[] = [];
  const finishers = new Map<number, () => void>();
  const freers = new Map<number, () => void>();
  // Attempts run until the test ends them; `freers` end an attempt's request (its slot frees, its
  // record is yet to come), as the attempt runner does.
  const slots = createEndpointSlots({
    perEndpoint,
    maxInFlight: concurrency,
    waitingPerEndpoint: Math.min(perEndpoint, claimAhead),
    run: (delivery, free) => {
      started.push(delivery.id);
      const done = deferred<void>();
      finishers.set(delivery.id, () => done.resolve());
      freers.set(delivery.id, free);
      return done.promise;
    },
  });
  const logger = recordingLogger();
  const loop = createClaimLoop({
    outbox,
    workerId: "w1",
    leaseMs: 60_000,
    concurrency,
    claimAhead,
    perEndpoint,
    pollIntervalMs: 1_000,
    policy,
    slots,
    now: Date.now,
    logger,
    turns,
  });
  const last = <K extends Call["kind"]>(kind: K) =>
    outbox.calls.filter((call): call is Extract<Call, { kind: K }> => call.kind === kind).at(-1);
  const free = (id: number) => freers.get(id)?.();
  return { outbox, started, finishers, free, slots, logger, loop, last };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("createClaimLoop", () => {
  it("is stopped until started, then claims as many as there are free slots, excluding full endpoints", async () => {
    const { outbox, started, loop, last } = setUp(4, 2);
    expect(loop.state).toBe("stopped");
    loop.wake();
    await turn();
    expect(outbox.calls).toEqual([]);
    loop.start();
    expect(loop.state).toBe("queued");
    await turn();
    expect(loop.state).toBe("idle");
    expect(last("claim")?.request).toEqual({
      workerId: "w1",
      limit: 4,
      leaseMs: 60_000,
      perEndpointLimit: 2,
      excludeEndpointIds: [],
    });
    last("claim")?.answer.resolve([claimedDelivery(1, 7), claimedDelivery(2, 7), claimedDelivery(3, 8)]);
    await loop.settled();
    expect(started).toEqual([1, 2, 3]);

    loop.wake();
    await turn();
    expect(last("claim")?.request).toMatchObject({ limit: 1, excludeEndpointIds: [7] });
  });

  it("claims again at once while a claim comes back full", async () => {
    const { outbox, loop, last } = setUp(4, 4);
    loop.start();
    await turn();
    last("claim")?.answer.resolve([
      claimedDelivery(1, 1),
      claimedDelivery(2, 2),
      claimedDelivery(3, 3),
      claimedDelivery(4, 4),
    ]);
    await turn();
    await turn();
    // Full, so more may be due: but no slot is free, so nothing reaches the outbox.
    expect(outbox.calls).toHaveLength(1);
    expect(loop.state).toBe("idle");
  });

  it("makes one round trip at a time: wakes during a claim queue exactly one claim after it", async () => {
    const { outbox, loop, last } = setUp(8, 2);
    loop.start();
    await turn();
    loop.wake();
    loop.wake();
    expect(loop.state).toBe("queued");
    await turn();
    expect(outbox.calls).toHaveLength(1);
    last("claim")?.answer.resolve([claimedDelivery(1, 1)]);
    await turn();
    await turn();
    expect(outbox.calls).toHaveLength(2);
    expect(last("claim")?.request.limit).toBe(7);
    last("claim")?.answer.resolve([]);
    await loop.settled();
    expect(outbox.calls).toHaveLength(2);
    expect(outbox.mostAtOnce()).toBe(1);
  });

  it("records the attempts finishing together in one call that claims for the slots they free", async () => {
    const { outbox, started, loop, last, free } = setUp(4, 2);
    loop.start();
    await turn();
    last("claim")?.answer.resolve([claimedDelivery(1, 7), claimedDelivery(2, 7), claimedDelivery(3, 8)]);
    await loop.settled();
    // Attempts 1 (endpoint 7) and 3 (endpoint 8) finish: their slots free as their requests end, and
    // their leases with the record that claims for them.
    free(1);
    free(3);
    const recording = [
      loop.record(report(1), Date.now() + 60_000),
      loop.record(report(3), Date.now() + 60_000),
    ];
    await turn();
    const call = last("record");
    expect(call?.reports.map((r) => r.deliveryId)).toEqual([1, 3]);
    expect(call?.options).toEqual({
      policy,
      claim: { workerId: "w1", limit: 3, leaseMs: 60_000, perEndpointLimit: 2, excludeEndpointIds: [] },
    });
    call?.answer.resolve({ recorded: [stored(1), stored(1)], claimed: [claimedDelivery(4, 9)] });
    expect(await Promise.all(recording)).toEqual([stored(1), stored(1)]);
    expect(started).toEqual([1, 2, 3, 4]);
    expect(outbox.calls.map((c) => c.kind)).toEqual(["claim", "record"]);
  });

  it("with more turns, records attempts finishing over consecutive turns in one round trip", async () => {
    const { outbox, loop, last, free } = setUp(4, 4, 0, ROUND_TRIP_TURNS);
    loop.start();
    // A claim alone waits one turn more than it would with one turn a round trip.
    await turn();
    expect(outbox.calls).toEqual([]);
    await turn();
    last("claim")?.answer.resolve([1, 2, 3, 4].map((id) => claimedDelivery(id, 7)));
    await loop.settled();
    // Answers come back over three turns, then a turn brings none: one record of the three.
    const recording: Array<Promise<unknown>> = [];
    for (const id of [1, 2, 3]) {
      free(id);
      recording.push(loop.record(report(id), Date.now() + 60_000));
      await turn();
    }
    expect(outbox.calls.map((c) => c.kind)).toEqual(["claim"]);
    await turn();
    expect(last("record")?.reports.map((r) => r.deliveryId)).toEqual([1, 2, 3]);
    last("record")?.answer.resolve({ recorded: [stored(1), stored(1), stored(1)], claimed: [] });
    await Promise.all(recording);
    expect(outbox.calls.map((c) => c.kind)).toEqual(["claim", "record"]);
  });

  it("keeps an endpoint excluded when the attempt it frees leaves it full", async () => {
    const { loop, last, free, started } = setUp(4, 2);
    loop.start();
    await turn();
    last("claim")?.answer.resolve([claimedDelivery(1, 7), claimedDelivery(2, 7), claimedDelivery(3, 7)]);
    await loop.settled();
    // Endpoint 7: 2 attempts running and 1 waiting; attempt 1's request ends, and 3 takes its slot, which
    // leaves it full. Free: 4 − 2 running, the record's own lease ending with it.
    free(1);
    expect(started).toEqual([1, 2, 3]);
    void loop.record(report(1), Date.now() + 60_000);
    await turn();
    expect(last("record")?.options.claim).toMatchObject({ limit: 2, excludeEndpointIds: [7] });
  });

  it("claims ahead of the free slots, and counts attempts still being recorded as held", async () => {
    const { loop, last, started, free, slots } = setUp(2, 2, 2);
    loop.start();
    await turn();
    // Two slots and two ahead.
    expect(last("claim")?.request).toMatchObject({ limit: 4, excludeEndpointIds: [] });
    last("claim")?.answer.resolve([
      claimedDelivery(1, 7),
      claimedDelivery(2, 7),
      claimedDelivery(3, 7),
      claimedDelivery(4, 8),
    ]);
    await loop.settled();
    expect(started).toEqual([1, 2]);
    expect(slots.waitingCount).toBe(2);
    // Attempt 1's request ends: 3 starts in its slot at once, before anything is recorded.
    free(1);
    expect(started).toEqual([1, 2, 3]);
    // Attempt 2's record has not reached the outbox yet; attempt 1's goes now. Held: 2 and 3 in flight,
    // 4 waiting, 2 recording; 1 ends with this round trip: 4 − 3 − 1 = 0, and nothing is claimed.
    free(2);
    expect(started).toEqual([1, 2, 3, 4]);
    const first = loop.record(report(1), Date.now() + 60_000);
    const second = loop.record(report(2), Date.now() + 60_000);
    await turn();
    expect(last("record")?.reports.map((r) => r.deliveryId)).toEqual([1, 2]);
    // Both end with it: 4 held (3 and 4 in flight) → 2 free.
    expect(last("record")?.options.claim).toMatchObject({ limit: 2, excludeEndpointIds: [] });
    last("record")?.answer.resolve({ recorded: [stored(1), stored(1)], claimed: [] });
    await Promise.all([first, second]);
  });

  it("counts a record waiting to be tried again as held, in the claims made meanwhile", async () => {
    vi.useFakeTimers();
    const { loop, last, free, outbox } = setUp(2, 2, 1);
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    last("claim")?.answer.resolve([claimedDelivery(1, 7), claimedDelivery(2, 8)]);
    await vi.advanceTimersByTimeAsync(0);
    free(1);
    const recording = loop.record(report(1), Date.now() + 60_000);
    await vi.advanceTimersByTimeAsync(0);
    last("record")?.answer.reject(new Error("deadlock detected"));
    await vi.advanceTimersByTimeAsync(0);
    // Paused for 100 ms before trying again: a claim now counts 1 as still leased. 3 − 1 in flight − 1.
    loop.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(last("claim")?.request.limit).toBe(1);
    last("claim")?.answer.resolve([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(outbox.calls.map((call) => call.kind)).toEqual(["claim", "record", "claim", "record"]);
    last("record")?.answer.resolve({ recorded: [stored(1)], claimed: [] });
    expect(await recording).toEqual(stored(1));
  });

  it("after a failed claim pauses claims, doubling the pause up to 5 s, while records still go through alone", async () => {
    vi.useFakeTimers();
    const { outbox, loop, logger, last } = setUp(4, 2);
    const failOnce = async () => {
      loop.wake();
      await vi.advanceTimersByTimeAsync(0);
      last("claim")?.answer.reject(new Error("database is locked"));
      await vi.advanceTimersByTimeAsync(0);
    };
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    last("claim")?.answer.reject(new Error("database is locked"));
    await vi.advanceTimersByTimeAsync(0);
    expect(loop.state).toBe("paused");
    loop.wake();
    await vi.advanceTimersByTimeAsync(1_999);
    loop.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(outbox.calls).toHaveLength(1);
    // A record during the pause carries no claim, and leaves the loop paused.
    const recording = loop.record(report(9), Date.now() + 60_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(last("record")?.options).toEqual({ policy });
    last("record")?.answer.resolve({ recorded: [stored(1)], claimed: [] });
    await recording;
    expect(loop.state).toBe("paused");
    // Starting again changes nothing while paused.
    loop.start();
    expect(loop.state).toBe("paused");
    await vi.advanceTimersByTimeAsync(1);
    await failOnce();
    await vi.advanceTimersByTimeAsync(4_000);
    await failOnce();
    await vi.advanceTimersByTimeAsync(5_000);
    await failOnce();
    expect(logger.lines.map((line) => [line.message, line.fields.retryInMs])).toEqual([
      ["claiming due deliveries failed", 2_000],
      ["claiming due deliveries failed", 4_000],
      ["claiming due deliveries failed", 5_000],
      ["claiming due deliveries failed", 5_000],
    ]);
    // A claim that succeeds starts the count over.
    await vi.advanceTimersByTimeAsync(5_000);
    loop.wake();
    await vi.advanceTimersByTimeAsync(0);
    last("claim")?.answer.resolve([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(loop.state).toBe("idle");
    await failOnce();
    expect(logger.lines.at(-1)?.fields.retryInMs).toBe(2_000);
  });

  it("retries a record that fails, with a growing pause, and gives up before the lease ends", async () => {
    vi.useFakeTimers();
    const { outbox, loop, logger, last } = setUp(4, 2);
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    last("claim")?.answer.resolve([]);
    const start = Date.now();
    const recording = loop.record(report(1), start + 1_500);
    let outcome: unknown;
    recording.then(
      (value) => (outcome = value),
      (error: Error) => (outcome = error.message),
    );
    // Every record fails, as a read-only file would; the test answers each when it is made.
    const tries: number[] = [];
    for (let ms = 0; ms <= 2_000 && outcome === undefined; ms += 10) {
      const call = last("record");
      if (call && !tries.includes(outbox.calls.indexOf(call))) {
        tries.push(outbox.calls.indexOf(call));
        call.answer.reject(new Error("disk I/O error"));
      }
      await vi.advanceTimersByTimeAsync(10);
    }
    // Tried at once, after 100 ms and after 200 ms more; a third pause (300 ms) would end past the
    // deadline less its 1 s margin, so the error is passed on then.
    expect(tries).toHaveLength(3);
    expect(outcome).toBe("disk I/O error");
    expect(Date.now() - start).toBeGreaterThanOrEqual(300);
    expect(Date.now() - start).toBeLessThan(500);
    expect(
      logger.lines.filter((line) => line.message === "recording an attempt failed, retrying"),
    ).toHaveLength(2);
  });

  it("gives back unattempted what a round trip returns after stop, records without claiming, and settles after", async () => {
    const { outbox, started, loop, last } = setUp(4, 2);
    loop.start();
    await turn();
    const recording = loop.record(report(7), Date.now() + 60_000);
    loop.stop();
    expect(loop.state).toBe("stopped");
    let settled = false;
    const done = loop.settled().then(() => {
      settled = true;
    });
    await turn();
    expect(settled).toBe(false);
    last("claim")?.answer.resolve([claimedDelivery(1, 1), claimedDelivery(2, 2)]);
    await turn();
    await turn();
    // The record that was waiting goes through, with no claim.
    expect(last("record")?.options).toEqual({ policy });
    last("record")?.answer.resolve({ recorded: [stored(1)], claimed: [] });
    await done;
    expect(await recording).toEqual(stored(1));
    expect(started).toEqual([]);
    expect(outbox.released.sort()).toEqual([1, 2]);
    loop.wake();
    await turn();
    expect(outbox.calls.map((c) => c.kind)).toEqual(["claim", "record"]);
  });

  it("knows when a delivery it claimed stops being held on this clock", async () => {
    const { loop, last } = setUp(4, 2);
    loop.start();
    const before = Date.now();
    await turn();
    const delivery = claimedDelivery(1, 1);
    last("claim")?.answer.resolve([delivery]);
    await loop.settled();
    const end = loop.leaseEnd(delivery);
    expect(end).toBeGreaterThanOrEqual(before + 60_000);
    expect(end).toBeLessThanOrEqual(Date.now() + 60_000);
    // One it never claimed: a lease from now (the clock read around the call: a loaded machine can
    // pause between two reads for longer than any margin).
    const asked = Date.now();
    const unclaimed = loop.leaseEnd(claimedDelivery(2, 1));
    expect(unclaimed).toBeGreaterThanOrEqual(asked + 60_000);
    expect(unclaimed).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it("answers each record of a round trip that also carries a claim with its own result", async () => {
    const { loop, last } = setUp(4, 2);
    loop.start();
    await turn();
    last("claim")?.answer.resolve([]);
    await loop.settled();
    // A wake first, then a record: one round trip, the claim item ahead of the record.
    loop.wake();
    const recording = loop.record(report(5), Date.now() + 60_000);
    await turn();
    expect(last("record")?.reports.map((r) => r.deliveryId)).toEqual([5]);
    last("record")?.answer.resolve({ recorded: [stored(7)], claimed: [] });
    expect(await recording).toEqual(stored(7));
    // The wake's claim was made with the record: the loop is idle again, and a wake queues the next.
    expect(loop.state).toBe("idle");
  });

  it("queues the next claim when woken while a claim rides with records", async () => {
    const { outbox, loop, last } = setUp(4, 2);
    loop.start();
    await turn();
    last("claim")?.answer.resolve([]);
    await loop.settled();
    loop.wake();
    void loop.record(report(5), Date.now() + 60_000);
    await turn();
    // Woken while the round trip runs: the claim made in it may not see what the wake announced.
    loop.wake();
    expect(loop.state).toBe("queued");
    last("record")?.answer.resolve({ recorded: [stored(1)], claimed: [] });
    await turn();
    await turn();
    expect(outbox.calls.map((call) => call.kind)).toEqual(["claim", "record", "claim"]);
  });

  it("claims again after a full claim when slots freed while it ran", async () => {
    const { outbox, loop, last, finishers } = setUp(4, 4);
    loop.start();
    await turn();
    last("claim")?.answer.resolve([claimedDelivery(1, 1)]);
    await loop.settled();
    loop.wake();
    await turn();
    expect(last("claim")?.request.limit).toBe(3);
    // Attempt 1 ends while the claim runs; the claim comes back full.
    finishers.get(1)?.();
    await turn();
    last("claim")?.answer.resolve([claimedDelivery(2, 2), claimedDelivery(3, 3), claimedDelivery(4, 4)]);
    await turn();
    await turn();
    expect(outbox.calls).toHaveLength(3);
    expect(last("claim")?.request.limit).toBe(1);
  });

  it("stays stopped when a claim started before stop() fails, and when stop() comes before its round trip", async () => {
    const { loop, last, logger } = setUp(4, 2);
    loop.start();
    await turn();
    loop.stop();
    last("claim")?.answer.reject(new Error("database is locked"));
    await loop.settled();
    expect(loop.state).toBe("stopped");
    expect(logger.lines.at(-1)?.fields).toMatchObject({ retryInMs: 2_000 });
    const again = setUp(4, 2);
    again.loop.start();
    again.loop.stop();
    await turn();
    expect(again.loop.state).toBe("stopped");
    expect(again.outbox.calls).toEqual([]);
  });

  it("tries a failing record three times once stopped, whatever time its lease leaves", async () => {
    vi.useFakeTimers();
    const { outbox, loop, last, logger } = setUp(4, 2);
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    last("claim")?.answer.resolve([]);
    await vi.advanceTimersByTimeAsync(0);
    loop.stop();
    const recording = loop.record(report(1), Date.now() + 3_600_000);
    let outcome: unknown;
    recording.catch((error: Error) => (outcome = error.message));
    const tries = new Set<number>();
    for (let ms = 0; ms <= 5_000 && outcome === undefined; ms += 10) {
      const call = last("record");
      if (call && !tries.has(outbox.calls.indexOf(call))) {
        tries.add(outbox.calls.indexOf(call));
        call.answer.reject(new Error("disk I/O error"));
      }
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(tries.size).toBe(3);
    expect(outcome).toBe("disk I/O error");
    expect(logger.lines.map((line) => line.fields)).toEqual([
      { deliveryId: 1, err: new Error("disk I/O error") },
      { deliveryId: 1, err: new Error("disk I/O error") },
    ]);
  });

  it("gives up at once when the next pause would end exactly at the lease's margin", async () => {
    vi.useFakeTimers();
    const { outbox, loop, last } = setUp(4, 2);
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    last("claim")?.answer.resolve([]);
    await vi.advanceTimersByTimeAsync(0);
    // 1 s margin and a first pause of 100 ms: a deadline 1.1 s away leaves no time for a retry.
    const recording = loop.record(report(1), Date.now() + 1_100);
    recording.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    last("record")?.answer.reject(new Error("disk I/O error"));
    await expect(recording).rejects.toThrow("disk I/O error");
    expect(outbox.calls.filter((call) => call.kind === "record")).toHaveLength(1);
  });

  it("runs without a logger", async () => {
    const outbox = fakeOutbox();
    const slots = createEndpointSlots({ perEndpoint: 1, run: async () => undefined });
    const loop = createClaimLoop({
      outbox,
      workerId: "w1",
      leaseMs: 2_000,
      concurrency: 1,
      perEndpoint: 1,
      pollIntervalMs: 1,
      policy,
      slots,
      now: Date.now,
      turns: 1,
    });
    loop.start();
    await turn();
    (outbox.calls[0] as Extract<Call, { kind: "claim" }>).answer.reject(new Error("locked"));
    await loop.settled();
    expect(loop.state).toBe("paused");
    const recording = loop.record(report(1), Date.now() + 1_200);
    await turn();
    (outbox.calls[1] as Extract<Call, { kind: "record" }>).answer.reject(new Error("locked"));
    // Tried again after its 100 ms pause.
    await vi.waitFor(() => expect(outbox.calls[2]?.kind).toBe("record"));
    (outbox.calls[2] as Extract<Call, { kind: "record" }>).answer.reject(new Error("locked"));
    await expect(recording).rejects.toThrow("locked");
  });
});

describe("createClaimLoop across owners and schedules", () => {
  const of = (
    id: number,
    endpointId: number,
    subscriberId: number | null,
    extra: Partial<ClaimedDelivery> = {},
  ) => {
    const delivery = claimedDelivery(id, endpointId, extra);
    return { ...delivery, endpoint: { ...delivery.endpoint, subscriberId } };
  };

  it("asks at most perOwner of an owner per claim and leaves out the owners that are full", async () => {
    const outbox = fakeOutbox();
    const slots = createEndpointSlots({
      perEndpoint: 2,
      maxInFlight: 8,
      perOwner: 3,
      run: () => new Promise<void>(() => undefined),
    });
    const loop = createClaimLoop({
      outbox,
      workerId: "w1",
      leaseMs: 60_000,
      concurrency: 8,
      perEndpoint: 2,
      perOwner: 3,
      pollIntervalMs: 1_000,
      policy,
      slots,
      now: Date.now,
      turns: 1,
    });
    loop.start();
    await turn();
    const first = outbox.calls.at(-1) as Extract<Call, { kind: "claim" }>;
    expect(first.request).toEqual({
      workerId: "w1",
      limit: 8,
      leaseMs: 60_000,
      perEndpointLimit: 2,
      perOwnerLimit: 3,
      excludeEndpointIds: [],
    });
    first.answer.resolve([of(1, 1, 5), of(2, 1, 5), of(3, 2, 5), of(4, 3, null)]);
    await loop.settled();
    loop.wake();
    await turn();
    const second = outbox.calls.at(-1) as Extract<Call, { kind: "claim" }>;
    // Subscriber 5 holds its three slots: left out; the operator is not.
    expect(second.request).toMatchObject({ limit: 4, excludeOwners: [5], perOwnerLimit: 3 });
  });

  it("starts a delivery no earlier than its startInMs after the claim's answer", async () => {
    const outbox = fakeOutbox();
    let clock = 1_000;
    const added: ClaimedDelivery[] = [];
    const slots = {
      inFlight: 0,
      waitingCount: 0,
      full: () => [],
      add: (delivery: ClaimedDelivery) => {
        added.push(delivery);
      },
    };
    const loop = createClaimLoop({
      outbox,
      workerId: "w1",
      leaseMs: 60_000,
      concurrency: 4,
      perEndpoint: 2,
      pollIntervalMs: 1_000,
      policy,
      slots,
      now: () => clock,
      turns: 1,
    });
    loop.start();
    await turn();
    // The answer comes 30 ms after the claim went out: waits count from then.
    clock += 30;
    (outbox.calls.at(-1) as Extract<Call, { kind: "claim" }>).answer.resolve([
      of(1, 1, null, { startInMs: 0 }),
      of(2, 1, null, { startInMs: 240 }),
      of(3, 2, null),
    ]);
    await loop.settled();
    expect(added.map((delivery) => loop.startAt(delivery))).toEqual([1_030, 1_270, 1_030]);
    clock += 5;
    // A delivery it never claimed: at once.
    expect(loop.startAt(of(9, 1, null))).toBe(1_035);
  });
});
