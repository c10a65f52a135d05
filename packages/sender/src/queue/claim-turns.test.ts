import { describe, expect, it } from "vitest";
import { type ClaimCandidate, takeTurns } from "./claim-turns.js";

const candidate = (id: number, owner: number, place: number, nextAttemptAt = id): ClaimCandidate => ({
  id,
  owner,
  place,
  nextAttemptAt,
});

describe("takeTurns", () => {
  it("takes the owners' work in turns, not by due time: an owner's large backlog does not go first", () => {
    // Subscriber 7's ten endpoints were due long before the operator's (owner 0) one delivery.
    const backlog = Array.from({ length: 10 }, (_, index) => candidate(index + 1, 7, 1, index));
    const operator = candidate(50, 0, 1, 1_000);
    expect(takeTurns([...backlog, operator], 16, 2)).toEqual([1, 50]);
    expect(takeTurns([...backlog, operator], 16, 11)).toContain(50);
  });

  it("takes at most perOwner of an owner, and at most limit in all", () => {
    const work = [candidate(1, 7, 1), candidate(2, 7, 1), candidate(3, 7, 1), candidate(4, 0, 1)];
    expect(takeTurns(work, 2, 10)).toEqual([1, 4, 2]);
    expect(takeTurns(work, 2, 2)).toEqual([1, 4]);
    expect(takeTurns(work, 2, 0)).toEqual([]);
    expect(takeTurns(work, 0, 10)).toEqual([]);
  });

  it("within an owner, every endpoint's first before any endpoint's second, each turn earliest due first", () => {
    const work = [
      candidate(1, 7, 1, 10),
      candidate(2, 7, 2, 11),
      candidate(3, 7, 1, 30),
      candidate(4, 7, 2, 31),
      candidate(5, 9, 1, 20),
      candidate(6, 9, 2, 5),
    ];
    // Turns: owner 7 takes 1 then 3 then 2 then 4; owner 9 takes 5 then 6. Round by round, an endpoint's
    // first before a second, then earliest first.
    expect(takeTurns(work, 10, 10)).toEqual([1, 5, 3, 6, 2, 4]);
  });

  it("breaks ties of place and due time by id", () => {
    expect(takeTurns([candidate(9, 1, 1, 5), candidate(3, 1, 1, 5)], 1, 5)).toEqual([3]);
    expect(takeTurns([candidate(9, 1, 1, 5), candidate(3, 2, 1, 5)], 1, 5)).toEqual([3, 9]);
  });
});
