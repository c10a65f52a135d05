import type { ClaimResult } from "./dedup-store.js";

/**
 * Where an in-process store keeps synchronous twins of its `claim`/`complete`/`release`. The once
 * runner uses them to skip a chain of promises per delivery; a store without them (SQLite,
 * PostgreSQL, any user store) goes through the asynchronous `DedupStore` methods.
 */
export const SYNC_DEDUP_STORE: unique symbol = Symbol("plant-store.sync-dedup-store");

/**
 * The once runner's synchronous twins take a process-wide counter as the claim token: unique within
 * the process, which is all an in-process store spans, and free to make.
 */
export type SyncClaimToken = string | number;

export interface SyncDedupStore {
  claim(webhookId: string, claimToken?: SyncClaimToken): ClaimResult;
  complete(webhookId: string, claimToken?: SyncClaimToken): void;
  release(webhookId: string, claimToken?: SyncClaimToken): void;
}
