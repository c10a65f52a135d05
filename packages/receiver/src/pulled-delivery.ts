import type { IncomingHeaders } from "./header-value.js";

/** Where a receiver keeps its entry for pulled events: internal to the package (`createCatchUp`). */
export const HANDLE_PULLED: unique symbol = Symbol("plant-store.handle-pulled");

/** One event of the store's events API, as the receive path takes it. */
export interface PulledDelivery {
  headers: IncomingHeaders;
  /** The exact bytes of the event's signed body. */
  body: Uint8Array;
}
