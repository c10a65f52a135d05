import { describe, expect, it } from "vitest";
import { claimedDelivery, deferred } from "../test/fixtures/claimed-delivery.js";
import { createEndpointSlots } from "./create-endpoint-slots.js";
import type { ClaimedDelivery } from "./outbox.js";

/** Slots whose attempts run until the test finishes them. */
function controlledSlots(perEndpoint: number) {
  const started: number[] = [];
  const finishers = new Map<number, () => void>();
  let freed = 0;
  const slots = createEndpointSlots({
    perEndpoint,
    run: (delivery: ClaimedDelivery) => {
      started.push(delivery.id);
      const done = deferred<void>();
      finishers.set(delivery.id, () => done.resolve());
      return done.promise;
    },
    onFree: () => {
      freed += 1;
    },
  });
  const finish = async (id: number) => {
    finishers.get(id)?.();
    // Let the attempt's finally (the slot freeing) run.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { slots, started, finish, freed: () => freed };
}

describe("createEndpointSlots", () => {
  it("starts at most perEndpoint attempts per endpoint and holds the rest", () => {
    const { slots, started } = controlledSlots(2);
    for (const [id, endpoint] of [
      [1, 7],
      [2, 7],
      [3, 7],
      [4, 8],
    ] as const)
      slots.add(claimedDelivery(id, endpoint));
    expect(started).toEqual([1, 2, 4]);
    expect(slots.inFlight).toBe(3);
    expect(slots.waitingCount).toBe(1);
  });

  it("reports as full the endpoints whose busy plus waiting reach the limit, only those", () => {
    const { slots } = controlledSlots(2);
    slots.add(claimedDelivery(1, 7));
    slots.add(claimedDelivery(2, 7));
    slots.add(claimedDelivery(3, 8));
    expect(slots.full()).toEqual([7]);
    slots.add(claimedDelivery(4, 8));
    slots.add(claimedDelivery(5, 8));
    expect(slots.full().sort()).toEqual([7, 8]);
  });

  it("launches the endpoint's next waiting delivery, in claim order, when one of its attempts ends", async () => {
    const { slots, started, finish, freed } = controlledSlots(1);
    slots.add(claimedDelivery(1, 7));
    slots.add(claimedDelivery(2, 7));
    slots.add(claimedDelivery(3, 7));
    slots.add(claimedDelivery(4, 8));
    expect(started).toEqual([1, 4]);

    await finish(4);
    // Another endpoint's slot freeing starts nothing of endpoint 7.
    expect(started).toEqual([1, 4]);
    await finish(1);
    expect(started).toEqual([1, 4, 2]);
    expect(slots.waitingCount).toBe(1);
    await finish(2);
    expect(started).toEqual([1, 4, 2, 3]);
    expect(slots.waitingCount).toBe(0);
    expect(freed()).toBe(3);
    await finish(3);
    expect(slots.inFlight).toBe(0);
    expect(slots.full()).toEqual([]);
  });

  it("close() hands back what waited, and an attempt ending after it starts nothing", async () => {
    const { slots, started, finish } = controlledSlots(1);
    slots.add(claimedDelivery(1, 7));
    slots.add(claimedDelivery(2, 7));
    slots.add(claimedDelivery(3, 8));
    slots.add(claimedDelivery(4, 8));

    const queued = slots.close();
    expect(queued.map((delivery) => delivery.id).sort()).toEqual([2, 4]);
    expect(slots.waitingCount).toBe(0);
    expect(() => slots.add(claimedDelivery(5, 9))).toThrow(/closed/);

    let idle = false;
    const waited = slots.idle().then(() => {
      idle = true;
    });
    await finish(1);
    expect(idle).toBe(false);
    await finish(3);
    await waited;
    expect(started).toEqual([1, 3]);
    expect(slots.inFlight).toBe(0);

    slots.open();
    slots.add(claimedDelivery(6, 7));
    expect(started).toEqual([1, 3, 6]);
  });
});
