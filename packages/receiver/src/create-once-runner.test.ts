import { describe, expect, it } from "vitest";
import { createMemoryDedupStore, type MemoryDedupStoreOptions } from "./create-memory-dedup-store.js";
import { createOnceRunner } from "./create-once-runner.js";
import type { DedupStore } from "./dedup-store.js";
import { DedupStoreFullError } from "./errors/dedup-store-full-error.js";
import { DeliveryInProgressError } from "./errors/delivery-in-progress-error.js";
import { HandlerFailedError } from "./errors/handler-failed-error.js";
import { InternalReceiverError } from "./errors/internal-receiver-error.js";

/** A handler that runs until the test lets it finish. */
function gate() {
  let open: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { handler: () => done, open, fail };
}

/** The two ways the runner talks to a store: the in-memory store's synchronous twins, or promises. */
const stores: [string, (options?: MemoryDedupStoreOptions) => DedupStore][] = [
  ["the in-memory store", (options) => createMemoryDedupStore(options)],
  [
    "a store without synchronous twins",
    (options) => {
      const store = createMemoryDedupStore(options);
      return {
        claim: (id, token) => store.claim(id, token),
        complete: (id, token) => store.complete(id, token),
        release: (id, token) => store.release(id, token),
        close: () => store.close(),
      };
    },
  ],
];

describe("createOnceRunner", () => {
  it("runs racing copies of one id once and tells the others it was a duplicate", async () => {
    const runner = createOnceRunner({ store: createMemoryDedupStore() });
    let calls = 0;
    // The first copy runs until all four have arrived.
    const first = gate();
    const handler = async () => {
      calls++;
      await first.handler();
    };
    const racing = Promise.all([1, 2, 3, 4].map(() => runner.run("x", handler)));
    first.open();
    const outcomes = await racing;
    expect(calls).toBe(1);
    expect(outcomes.sort()).toEqual(["duplicate", "duplicate", "duplicate", "handled"]);
  });

  it("fails the waiting copies when the first copy fails, then runs a redelivery", async () => {
    const runner = createOnceRunner({ store: createMemoryDedupStore() });
    // The first copy fails once the second has arrived.
    const failing = gate();
    const racing = Promise.allSettled([runner.run("x", failing.handler), runner.run("x", failing.handler)]);
    failing.fail(new Error("disk full"));
    const [first, second] = await racing;
    expect(first.status === "rejected" && first.reason).toBeInstanceOf(HandlerFailedError);
    expect(second.status === "rejected" && second.reason).toBeInstanceOf(DeliveryInProgressError);
    expect(await runner.run("x", async () => {})).toBe("handled");
  });

  it("gives up with DeliveryInProgressError when another instance keeps the id past the wait", async () => {
    const store = createMemoryDedupStore();
    await store.claim("x");
    const runner = createOnceRunner({ store, maxWaitMs: 50, pollMs: 10 });
    await expect(runner.run("x", async () => {})).rejects.toBeInstanceOf(DeliveryInProgressError);
  });

  it("asks the store again every 50 ms by default while another instance holds the id", async () => {
    const inner = createMemoryDedupStore();
    await inner.claim("x");
    let claims = 0;
    const store: DedupStore = {
      claim: (id, token) => {
        claims += 1;
        return inner.claim(id, token);
      },
      complete: (id, token) => inner.complete(id, token),
      release: (id, token) => inner.release(id, token),
      close: () => inner.close(),
    };
    const runner = createOnceRunner({ store, maxWaitMs: 120 });
    await expect(runner.run("x", async () => {})).rejects.toBeInstanceOf(DeliveryInProgressError);
    // The first claim, then one per 50 ms pause (timers only ever fire late): never a busy loop.
    expect(claims).toBeGreaterThanOrEqual(2);
    expect(claims).toBeLessThanOrEqual(4);
  });

  it("answers duplicate once another instance completes the id during the wait", async () => {
    const store = createMemoryDedupStore();
    await store.claim("x");
    const runner = createOnceRunner({ store, maxWaitMs: 5000, pollMs: 5 });
    let calls = 0;
    const waiting = runner.run("x", async () => {
      calls++;
    });
    setTimeout(() => void store.complete("x"), 30);
    expect(await waiting).toBe("duplicate");
    expect(calls).toBe(0);
  });
});

describe("createOnceRunner with the in-memory store's synchronous path", () => {
  it("runs a synchronous handler once per id and answers duplicate afterwards", async () => {
    const runner = createOnceRunner({ store: createMemoryDedupStore() });
    const seen: string[] = [];
    expect(await runner.run("a", () => void seen.push("a"))).toBe("handled");
    expect(await runner.run("a", () => void seen.push("a again"))).toBe("duplicate");
    expect(await runner.run("b", () => void seen.push("b"))).toBe("handled");
    expect(seen).toEqual(["a", "b"]);
  });

  it("releases the id when a synchronous handler throws, so a redelivery runs it again", async () => {
    const runner = createOnceRunner({ store: createMemoryDedupStore() });
    await expect(
      runner.run("x", () => {
        throw new Error("disk full");
      }),
    ).rejects.toBeInstanceOf(HandlerFailedError);
    let calls = 0;
    expect(
      await runner.run("x", () => {
        calls++;
      }),
    ).toBe("handled");
    expect(calls).toBe(1);
  });

  it("awaits a thenable handler before completing the id", async () => {
    const store = createMemoryDedupStore();
    const runner = createOnceRunner({ store });
    let resolveLater: () => void = () => undefined;
    const thenable: PromiseLike<void> = {
      // biome-ignore lint/suspicious/noThenProperty: a hand-made thenable is the point of the test
      then: (onFulfilled, onRejected) =>
        new Promise<void>((resolve) => {
          resolveLater = resolve;
        }).then(onFulfilled, onRejected),
    };
    const running = runner.run("t", () => thenable as Promise<void>);
    // Still held while the handler has not finished: another instance would see it in progress.
    expect(await store.claim("t")).toBe("in-progress");
    resolveLater();
    expect(await running).toBe("handled");
    expect(await store.claim("t")).toBe("completed");
  });
});

describe("createOnceRunner.runNow", () => {
  it("answers at once, not with a promise, for a synchronous handler on the in-memory store", () => {
    const runner = createOnceRunner({ store: createMemoryDedupStore() });
    let calls = 0;
    expect(runner.runNow("a", () => void calls++)).toBe("handled");
    expect(runner.runNow("a", () => void calls++)).toBe("duplicate");
    expect(calls).toBe(1);
  });

  it("throws the handler's failure at once and releases the id", () => {
    const runner = createOnceRunner({ store: createMemoryDedupStore() });
    expect(() =>
      runner.runNow("x", () => {
        throw new Error("disk full");
      }),
    ).toThrow(HandlerFailedError);
    expect(runner.runNow("x", () => {})).toBe("handled");
  });

  it("answers with a promise while something is pending, and keeps racing copies to one run", async () => {
    const runner = createOnceRunner({ store: createMemoryDedupStore() });
    const first = gate();
    const running = runner.runNow("x", first.handler);
    expect(running).toBeInstanceOf(Promise);
    const copy = runner.runNow("x", () => {});
    expect(copy).toBeInstanceOf(Promise);
    first.open();
    expect(await running).toBe("handled");
    expect(await copy).toBe("duplicate");
  });

  it("answers with a promise on a store without synchronous twins", async () => {
    const [, makeStore] = stores[1] as (typeof stores)[number];
    const runner = createOnceRunner({ store: makeStore() });
    const outcome = runner.runNow("x", () => {});
    expect(outcome).toBeInstanceOf(Promise);
    expect(await outcome).toBe("handled");
  });
});

describe.each(stores)("createOnceRunner with %s", (_name, makeStore) => {
  it("stops waiting for a copy of the id still running in this process after maxWaitMs, and lets a retry through", async () => {
    const runner = createOnceRunner({ store: makeStore(), maxWaitMs: 30, pollMs: 5 });
    const first = gate();
    const running = runner.run("x", first.handler);
    await expect(runner.run("x", async () => {})).rejects.toBeInstanceOf(DeliveryInProgressError);
    first.open();
    expect(await running).toBe("handled");
    expect(await runner.run("x", async () => {})).toBe("duplicate");
  });

  it("does not free another attempt's claim when a handler that outlived its lease fails", async () => {
    let t = 0;
    const store = makeStore({ leaseMs: 1000, now: () => t });
    // Two instances sharing the store, and a third that arrives later.
    const [a, b, c] = [1, 2, 3].map(() => createOnceRunner({ store, maxWaitMs: 30, pollMs: 5 }));
    const slow = gate();
    const first = a?.run("x", slow.handler);
    t = 1001;
    const takeover = gate();
    const second = b?.run("x", takeover.handler);
    slow.fail(new Error("gave up"));
    await expect(first).rejects.toBeInstanceOf(HandlerFailedError);
    // Still held by the second attempt: a third copy must wait, not run the handler again.
    let ran = false;
    await expect(
      c?.run("x", () => {
        ran = true;
      }),
    ).rejects.toBeInstanceOf(DeliveryInProgressError);
    expect(ran).toBe(false);
    takeover.open();
    expect(await second).toBe("handled");
    expect(await c?.run("x", () => {})).toBe("duplicate");
  });

  it("answers 500 (retry later) when the store is full of ids too young to forget", async () => {
    const runner = createOnceRunner({ store: makeStore({ maxEntries: 1 }) });
    expect(await runner.run("a", async () => {})).toBe("handled");
    const error = await runner.run("b", async () => {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalReceiverError);
    expect((error as InternalReceiverError).cause).toBeInstanceOf(DedupStoreFullError);
  });
});
