import type { ClaimedDelivery } from "../outbox.js";

/** Whose an endpoint is: a subscriber's id, or null for the operator's. */
export type Owner = number | null;

export interface EndpointSlotsOptions {
  /** Attempts in flight at once to one endpoint. */
  perEndpoint: number;
  /** Attempts in flight at once in all; default: no cap besides the endpoints'. */
  maxInFlight?: number;
  /**
   * Attempts in flight at once for one owner (a subscriber, or the operator); default: no cap besides
   * the others. While another owner has work waiting, an owner starts nothing more beyond its share of
   * `maxInFlight` (divided by the owners with work in flight or waiting).
   */
  perOwner?: number;
  /**
   * Claimed deliveries an endpoint may have waiting beyond its `perEndpoint` busy slots before `full()`
   * lists it; default 0 (full once its slots are busy or spoken for).
   */
  waitingPerEndpoint?: number;
  /** The same for an owner beyond its `perOwner` slots, before `fullOwners()` lists it; default 0. */
  waitingPerOwner?: number;
  /**
   * Makes one attempt (and records it). The slot frees when `free` is called (the attempt's request
   * ended, its record may still be on its way) or, at the latest, when the promise settles.
   */
  run: (delivery: ClaimedDelivery, free: () => void) => Promise<void>;
  /** A slot freed, or an attempt's record is done: more work may be claimed. */
  onFree?: () => void;
}

/** The worker's slots: attempts in flight, and claimed work waiting for a slot of its endpoint or any. */
export interface EndpointSlots {
  /** Attempts holding a slot right now. */
  readonly inFlight: number;
  /** Claimed deliveries waiting for a slot. */
  readonly waitingCount: number;
  /** Endpoints whose busy slots plus waiting deliveries reach `perEndpoint + waitingPerEndpoint`: a claim excludes them. */
  full(): number[];
  /** Owners whose busy slots plus waiting deliveries reach `perOwner + waitingPerOwner`: a claim excludes them. */
  fullOwners(): Owner[];
  /** Attempts in flight for the owner right now. */
  inFlightOf(owner: Owner): number;
  /** Starts the delivery when its endpoint, its owner and the worker have a free slot, or queues it until one frees. */
  add(delivery: ClaimedDelivery): void;
  /**
   * Stops launching: empties the queues and returns what waited (for the caller to give back), so an
   * attempt finishing from now on starts nothing new.
   */
  close(): ClaimedDelivery[];
  /** Opens the slots again after `close()` (a restarted worker). */
  open(): void;
  /** Resolves once no attempt is running (recording included). */
  idle(): Promise<void>;
}

const ownerOf = (delivery: ClaimedDelivery): Owner => delivery.endpoint.subscriberId ?? null;

const add1 = <K>(counts: Map<K, number>, key: K, by: number) => {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
};

/**
 * Caps attempts per endpoint, so a slow or dead endpoint holds at most `perEndpoint` slots while the
 * others keep flowing; per owner, so one subscriber's endpoints (however many) hold at most `perOwner`
 * slots, and no more than its share while another owner's work waits (a slot cannot be taken back from
 * an attempt that hangs until its timeout, so the cap is what keeps slots free for others); and in all
 * (`maxInFlight`). Deliveries claimed beyond the free slots are held (under the worker's lease) until a
 * slot frees, then launched one at a time, owners taking turns and each owner's endpoints taking turns,
 * in claim order per endpoint.
 */
export function createEndpointSlots(options: EndpointSlotsOptions): EndpointSlots {
  const { perEndpoint, run } = options;
  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  const perOwner = options.perOwner ?? Number.POSITIVE_INFINITY;
  const fullAt = perEndpoint + (options.waitingPerEndpoint ?? 0);
  const ownerFullAt = perOwner + (options.waitingPerOwner ?? 0);
  const tasks = new Set<Promise<void>>();
  // Claimed beyond the free slots, by endpoint; an endpoint goes to the back of the map when it launches.
  const waiting = new Map<number, ClaimedDelivery[]>();
  // The owners' turns: an owner goes to the back when it launches.
  const turns = new Map<Owner, true>();
  const busy = new Map<number, number>();
  const ownerBusy = new Map<Owner, number>();
  const ownerWaiting = new Map<Owner, number>();
  let inFlight = 0;
  let waitingCount = 0;
  let open = true;

  const endpointHasRoom = (endpointId: number) => (busy.get(endpointId) ?? 0) < perEndpoint;

  /** The owner's first waiting endpoint (in turn order) with a free slot of its own. */
  function nextEndpointOf(owner: Owner): number | undefined {
    for (const [endpointId, queue] of waiting)
      if (ownerOf(queue[0] as ClaimedDelivery) === owner && endpointHasRoom(endpointId)) return endpointId;
    return undefined;
  }

  /** What the owner may hold now: `perOwner`, or its share while another owner has work ready to start. */
  function capOf(owner: Owner): number {
    const ready = [...turns.keys()].filter((other) => nextEndpointOf(other) !== undefined);
    if (!ready.some((other) => other !== owner)) return perOwner;
    const owners = new Set<Owner>([...ownerBusy.keys(), ...ready]).size;
    return Math.min(perOwner, Math.max(1, Math.floor(maxInFlight / owners)));
  }

  /** Launches waiting deliveries while slots are free, one per owner's turn. */
  function pump(): void {
    let launched = true;
    while (launched) {
      launched = false;
      for (const owner of [...turns.keys()]) {
        if (inFlight >= maxInFlight) return;
        const endpointId = nextEndpointOf(owner);
        if (endpointId === undefined || (ownerBusy.get(owner) ?? 0) >= capOf(owner)) continue;
        const queue = waiting.get(endpointId) as ClaimedDelivery[];
        waiting.delete(endpointId);
        const delivery = queue.shift() as ClaimedDelivery;
        if (queue.length > 0) waiting.set(endpointId, queue);
        waitingCount -= 1;
        add1(ownerWaiting, owner, -1);
        turns.delete(owner);
        if (ownerWaiting.has(owner)) turns.set(owner, true);
        launch(delivery);
        launched = true;
      }
    }
  }

  function launch(delivery: ClaimedDelivery): void {
    const owner = ownerOf(delivery);
    inFlight += 1;
    add1(busy, delivery.endpointId, 1);
    add1(ownerBusy, owner, 1);
    let held = true;
    const free = () => {
      if (!held) return;
      held = false;
      inFlight -= 1;
      add1(busy, delivery.endpointId, -1);
      add1(ownerBusy, owner, -1);
      pump();
      options.onFree?.();
    };
    const task = run(delivery, free).finally(() => {
      tasks.delete(task);
      // Freed at the end of its request: now its record is done, too. More may be claimable than a claim
      // riding in the record's own statement could see (on PostgreSQL, a key's next delivery).
      if (held) free();
      else options.onFree?.();
    });
    tasks.add(task);
  }

  return {
    get inFlight() {
      return inFlight;
    },
    get waitingCount() {
      return waitingCount;
    },
    full() {
      return [...new Set([...busy.keys(), ...waiting.keys()])].filter(
        (id) => (busy.get(id) ?? 0) + (waiting.get(id)?.length ?? 0) >= fullAt,
      );
    },
    fullOwners() {
      return [...new Set([...ownerBusy.keys(), ...ownerWaiting.keys()])].filter(
        (owner) => (ownerBusy.get(owner) ?? 0) + (ownerWaiting.get(owner) ?? 0) >= ownerFullAt,
      );
    },
    inFlightOf: (owner) => ownerBusy.get(owner) ?? 0,
    add(delivery) {
      if (!open) throw new Error("the endpoint slots are closed");
      // Behind deliveries already waiting for the same endpoint: claim order holds per endpoint.
      const queue = waiting.get(delivery.endpointId);
      if (queue) queue.push(delivery);
      else waiting.set(delivery.endpointId, [delivery]);
      waitingCount += 1;
      const owner = ownerOf(delivery);
      add1(ownerWaiting, owner, 1);
      if (!turns.has(owner)) turns.set(owner, true);
      pump();
    },
    close() {
      open = false;
      const queued = [...waiting.values()].flat();
      waiting.clear();
      turns.clear();
      ownerWaiting.clear();
      waitingCount = 0;
      return queued;
    },
    open() {
      open = true;
    },
    async idle() {
      while (tasks.size > 0) await Promise.allSettled([...tasks]);
    },
  };
}
