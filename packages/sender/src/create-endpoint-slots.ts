import type { ClaimedDelivery } from "./outbox.js";

export interface EndpointSlotsOptions {
  /** Attempts in flight at once to one endpoint. */
  perEndpoint: number;
  /** Makes one attempt (and records it); the slot frees when the promise settles. */
  run: (delivery: ClaimedDelivery) => Promise<void>;
  /** A slot freed: more work may be claimed. */
  onFree?: () => void;
}

/** The worker's per-endpoint slots: attempts in flight, and claimed work waiting for its endpoint. */
export interface EndpointSlots {
  /** Attempts in flight right now. */
  readonly inFlight: number;
  /** Claimed deliveries waiting for a slot of their endpoint. */
  readonly waitingCount: number;
  /**
   * Endpoints with no slot left (busy plus waiting): a claim excludes them. `freeing` lists the endpoint
   * of each attempt about to end (a claim made with their record), whose slots count as free.
   */
  full(freeing?: readonly number[]): number[];
  /** Starts the delivery when its endpoint has a free slot, or queues it until one frees. */
  add(delivery: ClaimedDelivery): void;
  /**
   * Stops launching: empties the queues and returns what waited (for the caller to give back), so an
   * attempt finishing from now on starts nothing new.
   */
  close(): ClaimedDelivery[];
  /** Opens the slots again after `close()` (a restarted worker). */
  open(): void;
  /** Resolves once no attempt is in flight. */
  idle(): Promise<void>;
}

/**
 * Caps attempts per endpoint so a slow or dead endpoint holds at most `perEndpoint` slots while the
 * others keep flowing. Deliveries claimed beyond an endpoint's free slots are held (under the
 * worker's lease) until a slot of that endpoint frees, then launched in claim order.
 */
export function createEndpointSlots(options: EndpointSlotsOptions): EndpointSlots {
  const { perEndpoint, run } = options;
  const inFlight = new Set<Promise<void>>();
  // Claimed beyond an endpoint's free slots: held under our lease until a slot frees.
  const waiting = new Map<number, ClaimedDelivery[]>();
  const busy = new Map<number, number>();
  let waitingCount = 0;
  let open = true;

  function launch(delivery: ClaimedDelivery): void {
    busy.set(delivery.endpointId, (busy.get(delivery.endpointId) ?? 0) + 1);
    const task = run(delivery).finally(() => {
      inFlight.delete(task);
      const left = (busy.get(delivery.endpointId) ?? 1) - 1;
      if (left > 0) busy.set(delivery.endpointId, left);
      else busy.delete(delivery.endpointId);
      const queue = waiting.get(delivery.endpointId);
      const next = queue?.shift();
      if (queue && queue.length === 0) waiting.delete(delivery.endpointId);
      if (next) {
        waitingCount -= 1;
        launch(next);
      }
      options.onFree?.();
    });
    inFlight.add(task);
  }

  return {
    get inFlight() {
      return inFlight.size;
    },
    get waitingCount() {
      return waitingCount;
    },
    full(freeing = []) {
      const ending = new Map<number, number>();
      for (const id of freeing) ending.set(id, (ending.get(id) ?? 0) + 1);
      return [...new Set([...busy.keys(), ...waiting.keys()])].filter(
        (id) => (busy.get(id) ?? 0) - (ending.get(id) ?? 0) + (waiting.get(id)?.length ?? 0) >= perEndpoint,
      );
    },
    add(delivery) {
      if (!open) throw new Error("the endpoint slots are closed");
      if ((busy.get(delivery.endpointId) ?? 0) < perEndpoint) {
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
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
