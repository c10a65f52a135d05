import { TIMESTAMP_TOLERANCE_SECONDS } from "@plant-store/types";
import {
  DEFAULT_DEDUP_LEASE_MS,
  DEFAULT_DEDUP_TTL_MS,
  type DedupStore,
  type DedupStoreOptions,
} from "./dedup-store.js";
import { DedupStoreFullError } from "./errors/dedup-store-full-error.js";
import { SYNC_DEDUP_STORE, type SyncClaimToken, type SyncDedupStore } from "./sync-dedup-store.js";

export interface MemoryDedupStoreOptions extends DedupStoreOptions {
  /**
   * Most ids remembered. Default 100 000. When full, the id claimed longest ago is forgotten to
   * make room, but only once it is older than `minRetentionMs` (and, while pending, its lease);
   * while every id is younger, a new id is refused with `DedupStoreFullError` (the router answers
   * 500 and the sender retries later) rather than forgetting an id that could still be replayed.
   */
  maxEntries?: number;
  /**
   * How long an id is kept even when the store is full. Default 600 000 ms (10 minutes): twice the
   * default timestamp tolerance, the longest a captured request stays replayable (its timestamp may
   * be up to the tolerance ahead of our clock, and is accepted up to the tolerance after that). The
   * router's default store uses twice its own `toleranceSeconds`.
   */
  minRetentionMs?: number;
}

/** A pending claim: when it was taken, and its owner. */
interface Claim {
  at: number;
  token: SyncClaimToken | undefined;
}

/**
 * A pending id is its `Claim`; a completed one only its claim time, as milliseconds after the store
 * was made: a small integer, which V8 keeps in the map's own slot. A remembered id then costs no
 * object of its own (a store at its bound holds hundreds of thousands of them, and every object is
 * work for each garbage collection).
 */
type Entry = Claim | number;

/** One process only: for a single instance, or tests. Bounded in size and time. */
export function createMemoryDedupStore(options: MemoryDedupStoreOptions = {}): DedupStore {
  const ttlMs = options.ttlMs ?? DEFAULT_DEDUP_TTL_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_DEDUP_LEASE_MS;
  const maxEntries = options.maxEntries ?? 100_000;
  const minRetentionMs = options.minRetentionMs ?? 2 * TIMESTAMP_TOLERANCE_SECONDS * 1000;
  const pendingRetentionMs = Math.max(minRetentionMs, leaseMs);
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order; an entry is inserted when claimed (again after a release or
  // an expiry) and completed in place, so the first one is always the one claimed longest ago.
  const entries = new Map<string, Entry>();
  const epoch = now();
  const claimedAt = (entry: Entry): number => (typeof entry === "number" ? epoch + entry : entry.at);

  /** Forgets old ids until one more fits; false when the oldest is still too young to forget. */
  const makeRoom = (t: number): boolean => {
    while (entries.size >= maxEntries) {
      const oldest = entries.entries().next().value;
      if (oldest === undefined) break;
      const [id, entry] = oldest;
      const age = t - claimedAt(entry);
      if (age < (typeof entry === "number" ? minRetentionMs : pendingRetentionMs)) return false;
      entries.delete(id);
    }
    return true;
  };

  const sync: SyncDedupStore = {
    claim(id, token) {
      const entry = entries.get(id);
      const t = now();
      if (entry !== undefined) {
        if (typeof entry === "number") {
          if (t - (epoch + entry) < ttlMs) return "completed";
        } else if (t - entry.at < leaseMs) return "in-progress";
        entries.delete(id);
      } else if (entries.size >= maxEntries && !makeRoom(t)) {
        throw new DedupStoreFullError(maxEntries, minRetentionMs);
      }
      entries.set(id, { at: t, token });
      return "claimed";
    },
    complete(id) {
      const entry = entries.get(id);
      if (entry !== undefined) {
        // Done in place: the id keeps its place and its claim time, so the map stays in claim order,
        // oldest first. The claim time is when its timestamp was checked, so the replay window
        // (minRetentionMs) still counts from no later than it should; and no entry moves per delivery.
        if (typeof entry !== "number") entries.set(id, entry.at - epoch);
        return;
      }
      const t = now();
      // A handled id is remembered even past the bound: forgetting it would run the handler again.
      if (entries.size >= maxEntries) makeRoom(t);
      entries.set(id, t - epoch);
    },
    release(id, token) {
      const entry = entries.get(id);
      if (
        entry !== undefined &&
        typeof entry !== "number" &&
        (token === undefined || entry.token === token)
      ) {
        entries.delete(id);
      }
    },
  };

  const store: DedupStore & { [SYNC_DEDUP_STORE]: SyncDedupStore } = {
    async claim(id, token) {
      return sync.claim(id, token);
    },
    async complete(id, token) {
      sync.complete(id, token);
    },
    async release(id, token) {
      sync.release(id, token);
    },
    async close() {
      entries.clear();
    },
    [SYNC_DEDUP_STORE]: sync,
  };
  return store;
}
