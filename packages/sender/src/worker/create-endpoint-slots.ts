import type { ClaimedDelivery } from "../outbox.js";

export interface EndpointSlotsOptions {
  /** Attempts in flight at once to one endpoint. */
  perEndpoint: number;
  /** Attempts in flight at once in all; default: no cap besides the endpoints'. */
  maxInFlight?: number;
  /**
   * Claimed deliveries an endpoint may have waiting beyond its `perEndpoint` busy slots before `full()`
   * lists it; default 0 (full once its slots are busy or spoken for).
   */
  waitingPerEndpoint?: number;
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
  /** Starts the delivery when its endpoint (and the worker) has a free slot, or queues it until one frees. */
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

/**
 * Caps attempts per endpoint, so a slow or dead endpoint holds at most `perEndpoint` slots while the
 * others keep flowing, and in all (`maxInFlight`). Deliveries claimed beyond the free slots are held
 * (under the worker's lease) until a slot frees, then launched in claim order per endpoint, the
 * endpoints taking turns.
 */
export function createEndpointSlots(options: EndpointSlotsOptions): EndpointSlots {
  const { perEndpoint, run } = options;
  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  const fullAt = perEndpoint + (options.waitingPerEndpoint ?? 0);
  const tasks = new Set<Promise<void>>();
  // Claimed beyond the free slots, by endpoint; an endpoint goes to the back of the map when it launches.
  const waiting = new Map<number, ClaimedDelivery[]>();
  const busy = new Map<number, number>();
  let inFlight = 0;
  let waitingCount = 0;
  let open = true;

  const hasRoom = (endpointId: number) => inFlight < maxInFlight && (busy.get(endpointId) ?? 0) < perEndpoint;

  /** Launches waiting deliveries while slots are free, one endpoint's turn at a time. */
  function pump(): void {
    for (const [endpointId, queue] of [...waiting]) {
      if (inFlight >= maxInFlight) return;
      if (!hasRoom(endpointId)) continue;
      waiting.delete(endpointId);
      while (queue.length > 0 && hasRoom(endpointId)) {
        waitingCount -= 1;
        launch(queue.shift() as ClaimedDelivery);
      }
      if (queue.length > 0) waiting.set(endpointId, queue);
    }
  }

  function launch(delivery: ClaimedDelivery): void {
    inFlight += 1;
    busy.set(delivery.endpointId, (busy.get(delivery.endpointId) ?? 0) + 1);
    let held = true;
    const free = () => {
      if (!held) return;
      held = false;
      inFlight -= 1;
      const left = (busy.get(delivery.endpointId) ?? 1) - 1;
      if (left > 0) busy.set(delivery.endpointId, left);
      else busy.delete(delivery.endpointId);
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
    add(delivery) {
      if (!open) throw new Error("the endpoint slots are closed");
      // Behind deliveries already waiting for the same endpoint: claim order holds per endpoint.
      if (!waiting.has(delivery.endpointId) && hasRoom(delivery.endpointId)) {
        launch(delivery);
        return;
      }
      const queue = waiting.get(delivery.endpointId);
      if (queue) queue.push(delivery);
      else waiting.set(delivery.endpointId, [delivery]);
      waitingCount += 1;
    },
    close() {
      open = false;
      const queued = [...waiting.values()].flat();
      waiting.clear();
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
