import { describe, expect, it } from "vitest";
import { createGroupCommit, type GroupOutcome } from "./create-group-commit.js";

describe("createGroupCommit", () => {
  it("puts calls made in one turn into one group, and later calls into the next once it is done", async () => {
    const groups: number[][] = [];
    let release: (() => void) | undefined;
    const add = createGroupCommit<number, number>(async (items) => {
      groups.push([...items]);
      if (groups.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return items.map((item) => ({ ok: true, value: item * 10 }));
    });
    const first = [add(1), add(2), add(3)];
    await new Promise((resolve) => setImmediate(resolve));
    // The first group is committing: these wait for the next one.
    const second = [add(4), add(5)];
    release?.();
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(groups).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it("answers each caller with its own outcome, and everyone with the commit's failure", async () => {
    let failCommit = false;
    const add = createGroupCommit<string, string>(async (items) => {
      if (failCommit) throw new Error("commit failed");
      return items.map(
        (item): GroupOutcome<string> =>
          item === "bad" ? { ok: false, error: new Error("bad item") } : { ok: true, value: item },
      );
    });
    const outcomes = await Promise.allSettled([add("a"), add("bad"), add("b")]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    failCommit = true;
    const failed = await Promise.allSettled([add("c"), add("d")]);
    expect(
      failed.map((outcome) => (outcome.status === "rejected" ? (outcome.reason as Error).message : "")),
    ).toEqual(["commit failed", "commit failed"]);
  });

  it("keeps groups to maxBatch items", async () => {
    const sizes: number[] = [];
    const add = createGroupCommit<number, number>(
      async (items) => {
        sizes.push(items.length);
        return items.map((item) => ({ ok: true, value: item }));
      },
      { maxBatch: 4 },
    );
    await Promise.all(Array.from({ length: 10 }, (_, index) => add(index)));
    expect(sizes).toEqual([4, 4, 2]);
  });
});
