import {
  DEFAULT_DEDUP_LEASE_MS,
  DEFAULT_DEDUP_TTL_MS,
  type DedupStore,
  type DedupStoreOptions,
} from "./dedup-store.js";
import { SYNC_DEDUP_STORE, type SyncDedupStore } from "./sync-dedup-store.js";

export interface MemoryDedupStoreOptions extends DedupStoreOptions {
  /** Most ids remembered; the oldest are forgotten first. Default 100 000. */
  maxEntries?: number;
}

interface Entry {
  state: "pending" | "done";
  at: number;
}

/** One process only: for a single instance, or tests. Bounded in size and time. */
export function createMemoryDedupStore(options: MemoryDedupStoreOptions = {}): DedupStore {
  const ttlMs = options.ttlMs ?? DEFAULT_DEDUP_TTL_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_DEDUP_LEASE_MS;
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order; entries are re-inserted on every change, so the first
  // one is always the least recently touched.
  const entries = new Map<string, Entry>();

  const set = (id: string, entry: Entry) => {
    entries.delete(id);
    entries.set(id, entry);
    while (entries.size > maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
  };

  const sync: SyncDedupStore = {
    claim(id) {
      const entry = entries.get(id);
      const t = now();
      if (entry?.state === "done" && t - entry.at < ttlMs) return "completed";
      if (entry?.state === "pending" && t - entry.at < leaseMs) return "in-progress";
      set(id, { state: "pending", at: t });
      return "claimed";
    },
    complete(id) {
      set(id, { state: "done", at: now() });
    },
    release(id) {
      if (entries.get(id)?.state === "pending") entries.delete(id);
    },
  };

  const store: DedupStore & { [SYNC_DEDUP_STORE]: SyncDedupStore } = {
    async claim(id) {
      return sync.claim(id);
    },
    async complete(id) {
      sync.complete(id);
    },
    async release(id) {
      sync.release(id);
    },
    async close() {
      entries.clear();
    },
    [SYNC_DEDUP_STORE]: sync,
  };
  return store;
}
