import type { ClaimResult } from "./dedup-store.js";

/**
 * Where an in-process store keeps synchronous twins of its `claim`/`complete`/`release`. The once
 * runner uses them to skip a chain of promises per delivery; a store without them (SQLite,
 * PostgreSQL, any user store) goes through the asynchronous `DedupStore` methods.
 */
export const SYNC_DEDUP_STORE: unique symbol = Symbol("plant-store.sync-dedup-store");

export interface SyncDedupStore {
  claim(webhookId: string): ClaimResult;
  complete(webhookId: string): void;
  release(webhookId: string): void;
}
