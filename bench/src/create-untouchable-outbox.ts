import type { Outbox } from "@plant-store/sender";

export class OutboxTouchedError extends Error {
  readonly code = "ERR_OUTBOX_TOUCHED";
  override readonly name = "OutboxTouchedError";
}

/**
 * The ingest floor's outbox: `POST /plants` must never reach it (the catalog queues the event), so any
 * use throws, and a floor request that touched it answers 500 and is not counted as added.
 */
export function createUntouchableOutbox(): Outbox {
  return new Proxy({} as Outbox, {
    get(_target, property) {
      throw new OutboxTouchedError(`the floor's outbox was touched (${String(property)})`);
    },
  });
}
