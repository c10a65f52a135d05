import type { DedupStore } from "./dedup-store.js";
import { DeliveryInProgressError } from "./errors/delivery-in-progress-error.js";
import { HandlerFailedError } from "./errors/handler-failed-error.js";
import { InternalReceiverError } from "./errors/internal-receiver-error.js";
import type { Maybe } from "./maybe.js";
import { SYNC_DEDUP_STORE, type SyncDedupStore } from "./sync-dedup-store.js";

/** Claim tokens for in-process stores: unique in the process, shared by every runner in it. */
let lastSyncClaim = 0;

/** The handler failed: the claim is released so that the sender's retry runs it again. */
function failSync(store: SyncDedupStore, id: string, token: number, error: unknown): never {
  try {
    store.release(id, token);
  } catch {
    // The claim's lease runs out and frees the id.
  }
  throw new HandlerFailedError(error);
}

function completeSync(store: SyncDedupStore, id: string, token: number): OnceOutcome {
  try {
    store.complete(id, token);
  } catch (error) {
    throw new InternalReceiverError(error);
  }
  return "handled";
}

export interface OnceRunnerOptions {
  store: DedupStore;
  /**
   * Longest wait for another copy of the same id (in this process or on another instance) before
   * answering 500 (retry later). Default 10 s: under the sender's 15 s answer timeout.
   */
  maxWaitMs?: number;
  /** Pause between asking the store again while another instance holds the id. Default 50 ms. */
  pollMs?: number;
}

export type OnceOutcome = "handled" | "duplicate";

/**
 * Runs a handler at most once per webhook id. Copies racing in this process await the first one's
 * promise; copies racing on other instances poll the shared store; both wait at most `maxWaitMs`.
 * Each attempt claims with a token of its own, so its `release` cannot free another's claim.
 * Throws `HandlerFailedError`, `DeliveryInProgressError` or `InternalReceiverError` (all 500).
 */
export function createOnceRunner(options: OnceRunnerOptions) {
  const { store } = options;
  const maxWaitMs = options.maxWaitMs ?? 10_000;
  const pollMs = options.pollMs ?? 50;
  const inFlight = new Map<string, Promise<OnceOutcome>>();

  const claim = async (id: string, token: string) => {
    try {
      return await store.claim(id, token);
    } catch (error) {
      throw new InternalReceiverError(error);
    }
  };

  const attempt = async (id: string, handler: () => void | Promise<void>): Promise<OnceOutcome> => {
    const deadline = Date.now() + maxWaitMs;
    // The global Web Crypto object: this file runs in Workers and Deno too.
    const token = globalThis.crypto.randomUUID();
    let state = await claim(id, token);
    while (state === "in-progress") {
      // Stryker disable next-line EqualityOperator: equivalent: > and >= differ only in the one millisecond at the deadline, after which the next poll gives up
      if (Date.now() >= deadline) throw new DeliveryInProgressError();
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      state = await claim(id, token);
    }
    if (state === "completed") return "duplicate";
    try {
      await handler();
    } catch (error) {
      // Released so that the sender's retry runs the handler again; if even that fails the
      // claim's lease runs out and frees the id.
      await store.release(id, token).catch(() => undefined);
      throw new HandlerFailedError(error);
    }
    try {
      await store.complete(id, token);
    } catch (error) {
      throw new InternalReceiverError(error);
    }
    return "handled";
  };

  /**
   * A copy of an id this process is already handling: "duplicate" once the first copy succeeds; a
   * retry-later error if it fails, or if it is still running after `maxWaitMs` (a handler that hangs
   * must not hold every copy's request, and the sender's retry will find the id completed or free).
   */
  const waitForCopy = (running: Promise<OnceOutcome>) =>
    new Promise<OnceOutcome>((resolve, reject) => {
      const timer = setTimeout(() => reject(new DeliveryInProgressError()), maxWaitMs);
      running.then(
        () => {
          clearTimeout(timer);
          resolve("duplicate");
        },
        () => {
          clearTimeout(timer);
          reject(new DeliveryInProgressError());
        },
      );
    });

  const sync = (store as { [SYNC_DEDUP_STORE]?: SyncDedupStore })[SYNC_DEDUP_STORE];

  /**
   * The same steps as `attempt` against an in-process store, without a promise per step: a
   * synchronous handler is claimed, run and completed in one go. `undefined` means the id is held
   * by an unexpired claim, which only the polling `attempt` handles.
   */
  const attemptSync = (
    id: string,
    handler: () => void | Promise<void>,
    syncStore: SyncDedupStore,
  ): OnceOutcome | Promise<OnceOutcome> | undefined => {
    let state: ReturnType<SyncDedupStore["claim"]>;
    // Stryker disable next-line UpdateOperator: equivalent: counting down gives every claim a token of its own too
    const token = ++lastSyncClaim;
    try {
      state = syncStore.claim(id, token);
    } catch (error) {
      throw new InternalReceiverError(error);
    }
    if (state === "completed") return "duplicate";
    if (state === "in-progress") return undefined;
    let result: void | Promise<void>;
    try {
      result = handler();
    } catch (error) {
      return failSync(syncStore, id, token, error);
    }
    // Anything promise-like is awaited, as `await handler()` would.
    return typeof (result as PromiseLike<void> | undefined)?.then === "function"
      ? Promise.resolve(result).then(
          () => completeSync(syncStore, id, token),
          (error: unknown) => failSync(syncStore, id, token, error),
        )
      : completeSync(syncStore, id, token);
  };

  /** Keeps `promise` as the id's running copy until it settles. */
  const track = (id: string, promise: Promise<OnceOutcome>): Promise<OnceOutcome> => {
    inFlight.set(id, promise);
    return promise.finally(() => inFlight.delete(id));
  };

  /**
   * `run`, answering at once (no promise) when the store has synchronous twins and the handler
   * returns no promise: the receive path's usual case, a promise and a turn of the event loop less
   * per delivery. Its errors may then be thrown rather than rejected.
   */
  const runNow = (id: string, handler: () => void | Promise<void>): Maybe<OnceOutcome> => {
    const running = inFlight.get(id);
    if (running !== undefined) return waitForCopy(running);
    if (sync !== undefined) {
      const outcome = attemptSync(id, handler, sync);
      // Settled already: nothing can have raced it within this process.
      if (typeof outcome === "string") return outcome;
      if (outcome !== undefined) return track(id, outcome);
    }
    return track(id, attempt(id, handler));
  };

  return {
    async run(id: string, handler: () => void | Promise<void>): Promise<OnceOutcome> {
      return runNow(id, handler);
    },
    runNow,
  };
}
