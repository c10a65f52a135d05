import { describe, expect, it } from "vitest";
import { InvalidWorkerOptionError } from "../errors.js";
import { type BatchOutcome, createBatcher } from "./create-batcher.js";

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("createBatcher", () => {
  it("puts calls made in one turn into one batch, and calls made while it runs into the next", async () => {
    const batches: number[][] = [];
    let release: (() => void) | undefined;
    const { submit } = createBatcher<number, number>({
      async flush(items) {
        batches.push([...items]);
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return items.map((item) => ({ ok: true, value: item * 10 }));
      },
    });
    const first = [submit(1), submit(2), submit(3)];
    await turn();
    // The first batch is being written: these wait for the next one.
    const second = [submit(4), submit(5)];
    await turn();
    expect(batches).toEqual([[1, 2, 3]]);
    release?.();
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it("answers each caller with its own outcome", async () => {
    const { submit } = createBatcher<string, string>({
      async flush(items) {
        return items.map(
          (item): BatchOutcome<string> =>
            item === "bad" ? { ok: false, error: new Error("bad item") } : { ok: true, value: item },
        );
      },
    });
    const outcomes = await Promise.allSettled([submit("a"), submit("bad"), submit("b")]);
    expect(outcomes).toEqual([
      { status: "fulfilled", value: "a" },
      { status: "rejected", reason: new Error("bad item") },
      { status: "fulfilled", value: "b" },
    ]);
  });

  it("tries each item of a failed batch alone, one after the other, so one bad item fails only itself", async () => {
    const batches: string[][] = [];
    let running = 0;
    let mostAtOnce = 0;
    const { submit } = createBatcher<string, string>({
      async flush(items) {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        batches.push([...items]);
        await turn();
        running -= 1;
        if (items.includes("poison")) throw new Error(items.length === 1 ? "poison alone" : "batch failed");
        return items.map((item) => ({ ok: true, value: item.toUpperCase() }));
      },
    });
    const outcomes = await Promise.allSettled([submit("a"), submit("poison"), submit("b")]);
    expect(outcomes).toEqual([
      { status: "fulfilled", value: "A" },
      { status: "rejected", reason: new Error("poison alone") },
      { status: "fulfilled", value: "B" },
    ]);
    expect(batches).toEqual([["a", "poison", "b"], ["a"], ["poison"], ["b"]]);
    expect(mostAtOnce).toBe(1);
  });

  it("fails a lone item with its batch's error, and an item the batch left without an outcome", async () => {
    let answer: "throw" | "short" = "throw";
    const { submit } = createBatcher<number, number>({
      async flush() {
        if (answer === "throw") throw new Error("commit failed");
        return [];
      },
    });
    await expect(submit(1)).rejects.toThrow("commit failed");
    answer = "short";
    await expect(submit(2)).rejects.toThrow("no outcome for this item");
  });

  it("keeps batches to maxBatch items, and resolves idle() once everything is answered", async () => {
    const sizes: number[] = [];
    const batcher = createBatcher<number, number>({
      maxBatch: 4,
      async flush(items) {
        sizes.push(items.length);
        await turn();
        return items.map((item) => ({ ok: true, value: item }));
      },
    });
    const answered: number[] = [];
    for (let index = 0; index < 10; index++) void batcher.submit(index).then((value) => answered.push(value));
    await batcher.idle();
    expect(sizes).toEqual([4, 4, 2]);
    expect(answered).toHaveLength(10);
    await batcher.idle();
  });

  describe("turns", () => {
    /** Submits `counts[i]` items in turn i, one turn after another; answers the batches flushed. */
    async function batchesOf(turns: number, counts: readonly number[], maxBatch?: number) {
      const batches: number[][] = [];
      const batcher = createBatcher<number, number>({
        turns,
        ...(maxBatch === undefined ? {} : { maxBatch }),
        async flush(items) {
          batches.push([...items]);
          return items.map((item) => ({ ok: true, value: item }));
        },
      });
      let next = 0;
      for (const count of counts) {
        for (let i = 0; i < count; i++) void batcher.submit(next++);
        await turn();
      }
      await batcher.idle();
      return batches;
    }

    it("keeps a batch open while each turn brings items, up to `turns` turns", async () => {
      // One turn (the default): each turn's items are a batch of their own.
      expect(await batchesOf(1, [2, 2, 1])).toEqual([[0, 1], [2, 3], [4]]);
      // Four: the burst over three turns is one batch.
      expect(await batchesOf(4, [2, 2, 1])).toEqual([[0, 1, 2, 3, 4]]);
      // Two: the first two turns' items, then the third's.
      expect(await batchesOf(2, [2, 2, 1])).toEqual([[0, 1, 2, 3], [4]]);
    });

    it("closes a batch at the first turn that brings nothing, and at maxBatch", async () => {
      // The third turn brings nothing: the fourth's item goes in the next batch.
      expect(await batchesOf(8, [2, 1, 0, 1])).toEqual([[0, 1, 2], [3]]);
      expect(await batchesOf(8, [3, 3, 3], 4)).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8]]);
    });

    it("refuses a number of turns that is not a whole number of at least 1", () => {
      const flush = async () => [];
      expect(() => createBatcher({ flush, turns: 0 })).toThrow(InvalidWorkerOptionError);
      expect(() => createBatcher({ flush, turns: 1.5 })).toThrow("turns must be a whole number");
    });
  });
});
