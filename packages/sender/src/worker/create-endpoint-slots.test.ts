import { describe, expect, it } from "vitest";
import { claimedDelivery, deferred } from "../../test/fixtures/claimed-delivery.js";
import type { ClaimedDelivery } from "../outbox.js";
import { createEndpointSlots } from "./create-endpoint-slots.js";

/** Slots whose attempts run until the test finishes them (or ends their request: `free`). */
function controlledSlots(
  perEndpoint: number,
  more: {
    maxInFlight?: number;
    waitingPerEndpoint?: number;
    perOwner?: number;
    waitingPerOwner?: number;
  } = {},
) {
  const started: number[] = [];
  const finishers = new Map<number, () => void>();
  const freers = new Map<number, () => void>();
  let freed = 0;
  const slots = createEndpointSlots({
    perEndpoint,
    ...more,
    run: (delivery: ClaimedDelivery, free) => {
      started.push(delivery.id);
      const done = deferred<void>();
      finishers.set(delivery.id, () => done.resolve());
      freers.set(delivery.id, free);
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
  const free = (id: number) => freers.get(id)?.();
  return { slots, started, finish, free, freed: () => freed };
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

  it("frees a slot when its request ends, before the attempt is recorded, and only once", async () => {
    const { slots, started, finish, free, freed } = controlledSlots(1);
    slots.add(claimedDelivery(1, 7));
    slots.add(claimedDelivery(2, 7));
    expect(started).toEqual([1]);
    free(1);
    // 1 is still being recorded: 2 has its slot already.
    expect(started).toEqual([1, 2]);
    expect(slots.inFlight).toBe(1);
    free(1);
    expect(freed()).toBe(1);
    await finish(1);
    expect(slots.inFlight).toBe(1);
    // Once more when its record is done: a claim in the record's statement may not have seen everything.
    expect(freed()).toBe(2);
    let idle = false;
    const waited = slots.idle().then(() => {
      idle = true;
    });
    free(2);
    await new Promise((resolve) => setImmediate(resolve));
    // No slot held, but 2's record is still on its way.
    expect(slots.inFlight).toBe(0);
    expect(idle).toBe(false);
    await finish(2);
    await waited;
  });

  it("caps the attempts in flight in all, and the endpoints take turns for the slots that free", async () => {
    const { slots, started, free } = controlledSlots(2, { maxInFlight: 2 });
    for (const [id, endpoint] of [
      [1, 7],
      [2, 7],
      [3, 7],
      [4, 7],
      [5, 8],
      [6, 8],
    ] as const)
      slots.add(claimedDelivery(id, endpoint));
    expect(started).toEqual([1, 2]);
    expect(slots.waitingCount).toBe(4);
    // Endpoint 7 queued first, so it has the first freed slot, then goes behind 8.
    free(1);
    expect(started).toEqual([1, 2, 3]);
    free(2);
    expect(started).toEqual([1, 2, 3, 5]);
    free(3);
    expect(started).toEqual([1, 2, 3, 5, 4]);
    free(5);
    expect(started).toEqual([1, 2, 3, 5, 4, 6]);
    expect(slots.waitingCount).toBe(0);
    expect(slots.inFlight).toBe(2);
  });

  it("keeps claim order per endpoint: a delivery added while others of its endpoint wait goes behind them", () => {
    const { slots, started, free } = controlledSlots(1, { maxInFlight: 1 });
    slots.add(claimedDelivery(1, 7));
    slots.add(claimedDelivery(2, 8));
    free(1);
    expect(started).toEqual([1, 2]);
    slots.add(claimedDelivery(3, 7));
    // Endpoint 7 has a slot, the worker has none: 3 waits.
    expect(started).toEqual([1, 2]);
    free(2);
    expect(started).toEqual([1, 2, 3]);
  });

  it("lists an endpoint as full only once its waiting room is taken too", () => {
    const { slots } = controlledSlots(2, { waitingPerEndpoint: 2 });
    for (const id of [1, 2, 3]) slots.add(claimedDelivery(id, 7));
    expect(slots.full()).toEqual([]);
    slots.add(claimedDelivery(4, 7));
    expect(slots.full()).toEqual([7]);
    expect(slots.inFlight).toBe(2);
    expect(slots.waitingCount).toBe(2);
  });
});

describe("createEndpointSlots across owners", () => {
  const of = (id: number, endpointId: number, subscriberId: number | null) => {
    const delivery = claimedDelivery(id, endpointId);
    return { ...delivery, endpoint: { ...delivery.endpoint, subscriberId } };
  };

  it("holds one owner's hanging endpoints to perOwner slots, so the operator's deliveries start at once", () => {
    const { slots, started } = controlledSlots(2, { maxInFlight: 16, perOwner: 12 });
    // A subscriber's 10 endpoints, 2 deliveries each, none of which ever ends.
    let id = 0;
    for (let endpoint = 1; endpoint <= 10; endpoint++)
      for (let n = 0; n < 2; n++) slots.add(of(++id, endpoint, 5));
    expect(slots.inFlightOf(5)).toBe(12);
    expect(slots.waitingCount).toBe(8);
    // The operator's deliveries find free slots: started at once, past the subscriber's waiting ones.
    slots.add(of(100, 50, null));
    slots.add(of(101, 51, null));
    expect(started.slice(-2)).toEqual([100, 101]);
    expect(slots.inFlightOf(null)).toBe(2);
    expect(slots.inFlight).toBe(14);
  });

  it("while another owner waits, an owner starts nothing beyond its share, and the owners take turns", async () => {
    const { slots, started, free } = controlledSlots(4, { maxInFlight: 4, perOwner: 4 });
    for (const id of [1, 2, 3, 4]) slots.add(of(id, 1, 5));
    // Alone, the subscriber may use every slot.
    expect(slots.inFlightOf(5)).toBe(4);
    for (const id of [5, 6]) slots.add(of(id, 1, 5));
    for (const id of [7, 8, 9]) slots.add(of(id, 2, null));
    // The operator now waits: the subscriber's share is 4 / 2 owners = 2, so its next waits until it
    // holds fewer than 2, and the slots that free go to the operator meanwhile.
    free(1);
    expect(started.at(-1)).toBe(7);
    free(2);
    expect(started.at(-1)).toBe(8);
    // Each at its share of 2: the next freed slot goes back to the subscriber, below its share.
    free(3);
    expect(started.at(-1)).toBe(5);
    expect(slots.inFlightOf(null)).toBe(2);
    expect(slots.inFlightOf(5)).toBe(2);
    free(7);
    expect(started.at(-1)).toBe(9);
    // The operator has nothing left waiting: the subscriber may go past its share, up to perOwner.
    free(8);
    expect(started.at(-1)).toBe(6);
    expect(slots.inFlightOf(5)).toBe(3);
    expect(slots.waitingCount).toBe(0);
  });

  it("lists an owner as full once its slots and its waiting room are taken, only that owner", () => {
    const { slots } = controlledSlots(2, { maxInFlight: 16, perOwner: 3, waitingPerOwner: 2 });
    for (const [id, endpoint] of [
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 2],
    ] as const)
      slots.add(of(id, endpoint, 5));
    slots.add(of(5, 9, null));
    expect(slots.fullOwners()).toEqual([]);
    slots.add(of(6, 3, 5));
    expect(slots.inFlightOf(5)).toBe(3);
    expect(slots.fullOwners()).toEqual([5]);
  });
});

describe("createEndpointSlots: shares", () => {
  const of = (id: number, endpointId: number, subscriberId: number | null) => {
    const delivery = claimedDelivery(id, endpointId);
    return { ...delivery, endpoint: { ...delivery.endpoint, subscriberId } };
  };

  it("divides the slots among the owners with work, not those whose work has all ended", () => {
    const { slots, started, free } = controlledSlots(4, { maxInFlight: 4, perOwner: 4 });
    // Subscriber 1 had one attempt, ended: it has no share any more.
    slots.add(of(1, 1, 1));
    free(1);
    for (const id of [11, 12, 13, 14, 15, 16]) slots.add(of(id, 2, 2));
    expect(started).toEqual([1, 11, 12, 13, 14]);
    for (const id of [21, 22]) slots.add(of(id, 3, 3));
    // Two owners with work: 2 slots each. Owner 3 gets the first two that free, then owner 2 is below
    // its share again and takes the third.
    free(11);
    free(12);
    expect(started.slice(-2)).toEqual([21, 22]);
    free(13);
    expect(started.at(-1)).toBe(15);
  });

  it("counts as waiting only an owner whose waiting work could start: one blocked by its endpoint does not shrink others' share", () => {
    const { slots, started } = controlledSlots(1, { maxInFlight: 5, perOwner: 4 });
    slots.add(of(1, 9, 3));
    // Waits for endpoint 9's one slot: nothing another owner leaves free would start it.
    slots.add(of(2, 9, 3));
    for (const [id, endpoint] of [
      [11, 1],
      [12, 2],
      [13, 3],
      [14, 4],
    ] as const)
      slots.add(of(id, endpoint, 2));
    expect(started).toEqual([1, 11, 12, 13, 14]);
  });

  it("needs no onFree", async () => {
    let finish: () => void = () => undefined;
    const slots = createEndpointSlots({
      perEndpoint: 1,
      run: (_delivery, free) => {
        free();
        return new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
    });
    slots.add(claimedDelivery(1, 7));
    expect(slots.inFlight).toBe(0);
    finish();
    await slots.idle();
    expect(slots.inFlight).toBe(0);
  });
});
