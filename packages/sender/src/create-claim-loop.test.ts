import { afterEach, describe, expect, it, vi } from "vitest";
import { claimedDelivery, deferred, recordingLogger } from "../test/fixtures/claimed-delivery.js";
import { createClaimLoop } from "./create-claim-loop.js";
import { createEndpointSlots } from "./create-endpoint-slots.js";
import type { ClaimedDelivery, ClaimOptions } from "./outbox.js";

type Claim = {
  limit: number;
  options: ClaimOptions | undefined;
  answer: ReturnType<typeof deferred<ClaimedDelivery[]>>;
};

/** claimDue and release in memory: each claim waits for the test to answer it. */
function fakeOutbox() {
  const claims: Claim[] = [];
  const released: number[] = [];
  let open = 0;
  let mostAtOnce = 0;
  return {
    claims,
    released,
    mostAtOnce: () => mostAtOnce,
    claimDue(_workerId: string, limit: number, _leaseMs: number, options?: ClaimOptions) {
      const answer = deferred<ClaimedDelivery[]>();
      claims.push({ limit, options, answer });
      open += 1;
      mostAtOnce = Math.max(mostAtOnce, open);
      return answer.promise.finally(() => {
        open -= 1;
      });
    },
    async release(deliveryId: number) {
      released.push(deliveryId);
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

function setUp(concurrency = 4, perEndpoint = 2) {
  const outbox = fakeOutbox();
  const running = { value: true };
  const started: number[] = [];
  const finishers = new Map<number, () => void>();
  // Attempts run until the test ends them (nothing here ticks when a slot frees).
  const slots = createEndpointSlots({
    perEndpoint,
    run: (delivery) => {
      started.push(delivery.id);
      const done = deferred<void>();
      finishers.set(delivery.id, () => done.resolve());
      return done.promise;
    },
  });
  const finish = async (id: number) => {
    finishers.get(id)?.();
    await turn();
  };
  const logger = recordingLogger();
  const loop = createClaimLoop({
    outbox,
    workerId: "w1",
    leaseMs: 60_000,
    concurrency,
    perEndpoint,
    pollIntervalMs: 1_000,
    slots,
    isRunning: () => running.value,
    logger,
  });
  return { outbox, running, started, finish, slots, logger, loop };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("createClaimLoop", () => {
  it("claims as many as there are free slots, excluding endpoints with none left", async () => {
    const { outbox, started, loop } = setUp(4, 2);
    loop.tick();
    expect(outbox.claims[0]?.limit).toBe(4);
    expect(outbox.claims[0]?.options).toEqual({ perEndpointLimit: 2, excludeEndpointIds: [] });
    outbox.claims[0]?.answer.resolve([claimedDelivery(1, 7), claimedDelivery(2, 7), claimedDelivery(3, 8)]);
    await loop.settled();
    expect(started).toEqual([1, 2, 3]);

    loop.tick();
    expect(outbox.claims[1]?.limit).toBe(1);
    expect(outbox.claims[1]?.options?.excludeEndpointIds).toEqual([7]);
  });

  it("claims again at once while a claim comes back full, for slots freed while it ran", async () => {
    const { outbox, loop, slots, finish } = setUp(4, 4);
    loop.tick();
    outbox.claims[0]?.answer.resolve([claimedDelivery(1, 1)]);
    await loop.settled();
    expect(outbox.claims).toHaveLength(1);

    loop.tick();
    expect(outbox.claims[1]?.limit).toBe(3);
    await finish(1);
    outbox.claims[1]?.answer.resolve([claimedDelivery(2, 2), claimedDelivery(3, 3), claimedDelivery(4, 4)]);
    await turn();
    // The claim came back full: the slot freed meanwhile is claimed for without waiting for a tick.
    expect(outbox.claims[2]?.limit).toBe(1);
    outbox.claims[2]?.answer.resolve([]);
    await loop.settled();
    expect(outbox.claims).toHaveLength(3);
    expect(slots.inFlight).toBe(3);
  });

  it("does not claim while no slot is free", async () => {
    const { outbox, loop } = setUp(2, 2);
    loop.tick();
    outbox.claims[0]?.answer.resolve([claimedDelivery(1, 1), claimedDelivery(2, 2)]);
    await loop.settled();
    loop.tick();
    await loop.settled();
    expect(outbox.claims).toHaveLength(1);
  });

  it("runs one claim at a time: a tick during a claim claims once more after it", async () => {
    const { outbox, loop } = setUp(8, 2);
    loop.tick();
    loop.tick();
    loop.tick();
    expect(outbox.claims).toHaveLength(1);
    outbox.claims[0]?.answer.resolve([claimedDelivery(1, 1)]);
    await turn();
    expect(outbox.claims).toHaveLength(2);
    outbox.claims[1]?.answer.resolve([]);
    await loop.settled();
    expect(outbox.claims).toHaveLength(2);
    expect(outbox.mostAtOnce()).toBe(1);
  });

  it("scheduleTick claims once for every request made in one turn of the event loop", async () => {
    const { outbox, loop } = setUp(8, 2);
    loop.scheduleTick();
    loop.scheduleTick();
    loop.scheduleTick();
    expect(outbox.claims).toHaveLength(0);
    await turn();
    expect(outbox.claims).toHaveLength(1);
  });

  it("after a failed claim pauses claims, doubling the pause with each failure up to 5 s", async () => {
    vi.useFakeTimers();
    const { outbox, loop, logger } = setUp(4, 2);
    const failOnce = async () => {
      loop.tick();
      outbox.claims.at(-1)?.answer.reject(new Error("database is locked"));
      await loop.settled();
    };
    await failOnce();
    loop.tick();
    expect(outbox.claims).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_999);
    loop.tick();
    expect(outbox.claims).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await failOnce();
    await vi.advanceTimersByTimeAsync(4_000);
    await failOnce();
    await vi.advanceTimersByTimeAsync(5_000);
    await failOnce();
    expect(outbox.claims).toHaveLength(4);
    expect(logger.lines.map((line) => [line.message, line.fields.retryInMs])).toEqual([
      ["claiming due deliveries failed", 2_000],
      ["claiming due deliveries failed", 4_000],
      ["claiming due deliveries failed", 5_000],
      ["claiming due deliveries failed", 5_000],
    ]);

    // A claim that succeeds starts the count over.
    await vi.advanceTimersByTimeAsync(5_000);
    loop.tick();
    outbox.claims.at(-1)?.answer.resolve([]);
    await loop.settled();
    await vi.advanceTimersByTimeAsync(5_000);
    await failOnce();
    expect(logger.lines.at(-1)?.fields.retryInMs).toBe(2_000);
  });

  it("gives back unattempted what a claim returns after the worker stopped, and settles once it has", async () => {
    const { outbox, running, started, loop } = setUp(4, 2);
    loop.tick();
    running.value = false;
    let settled = false;
    const done = loop.settled().then(() => {
      settled = true;
    });
    await turn();
    expect(settled).toBe(false);
    outbox.claims[0]?.answer.resolve([claimedDelivery(1, 1), claimedDelivery(2, 2)]);
    await done;
    expect(started).toEqual([]);
    expect(outbox.released.sort()).toEqual([1, 2]);
    loop.tick();
    expect(outbox.claims).toHaveLength(1);
  });

  it("hands out a ticket claiming for the slots a record frees, counting the freeing endpoints' slots as free", async () => {
    const { outbox, started, loop } = setUp(4, 2);
    loop.tick();
    outbox.claims[0]?.answer.resolve([claimedDelivery(1, 7), claimedDelivery(2, 7), claimedDelivery(3, 8)]);
    await loop.settled();
    // Attempts 1 (endpoint 7) and 3 (endpoint 8) are being recorded: 1 slot free now, 2 more to come.
    const ticket = loop.ticket([7, 8]);
    expect(ticket?.request).toEqual({
      workerId: "w1",
      limit: 3,
      leaseMs: 60_000,
      options: { perEndpointLimit: 2, excludeEndpointIds: [] },
    });
    // While the ticket is out it is the claim in progress: no second claim, no second ticket.
    loop.tick();
    expect(outbox.claims).toHaveLength(1);
    expect(loop.ticket([7])).toBeUndefined();
    ticket?.settle([claimedDelivery(4, 9)]);
    await loop.settled();
    expect(started).toEqual([1, 2, 3, 4]);
    // The tick asked for during the ticket runs once it settled, and finds no slot free.
    await turn();
    expect(outbox.claims).toHaveLength(1);
    expect(loop.ticket([])).toBeUndefined();
  });

  it("keeps an endpoint excluded from a ticket when its freeing attempt leaves it full", async () => {
    const { outbox, loop } = setUp(4, 2);
    loop.tick();
    outbox.claims[0]?.answer.resolve([claimedDelivery(1, 7), claimedDelivery(2, 7), claimedDelivery(3, 7)]);
    await loop.settled();
    // Endpoint 7: 2 attempts running and 1 waiting; one attempt ending leaves it full.
    expect(loop.ticket([7])?.request.options?.excludeEndpointIds).toEqual([7]);
  });

  it("gives back what a ticket's claim got after the worker stopped, and lets the loop claim after a failed one", async () => {
    const { outbox, running, started, loop } = setUp(4, 2);
    const failed = loop.ticket([]);
    failed?.settle(undefined);
    await loop.settled();
    await turn();
    expect(outbox.claims).toHaveLength(1);
    outbox.claims[0]?.answer.resolve([]);
    await loop.settled();

    const late = loop.ticket([]);
    running.value = false;
    late?.settle([claimedDelivery(5, 1)]);
    await loop.settled();
    expect(started).toEqual([]);
    expect(outbox.released).toEqual([5]);
    expect(loop.ticket([])).toBeUndefined();
  });
});
