import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SLOW_LANE_AFTER } from "./claim-allowance.js";
import { claimAllowance, ownersTakeTurns, rateFrom, startFromPlace, WRITES_ON_CLAIM } from "./claim-sql.js";
import { render, type Sql, sql } from "./sql.js";
import { sqliteDialect } from "./sqlite/sqlite-dialect.js";

// The claim's SQL evaluated by SQLite itself, on rows given here; PostgreSQL runs the same text through
// the outbox suites (test/integration/*-outbox.test.ts).
const db = new Database(":memory:");
afterAll(() => db.close());
const evaluate = (statement: Sql) => {
  const { text, values } = render(statement, sqliteDialect);
  return db.prepare(text).all(...values) as Array<Record<string, number>>;
};

interface Endpoint {
  timeouts?: number;
  slowUntil?: number | null;
  rateLimit?: number | null;
  rateNextAt?: number | null;
}
const now = 1_000_000;

/** Endpoint `e`'s allowance, schedule start and whether a claim writes it, as the claim computes them. */
function claimOf(endpoint: Endpoint, perEndpoint: number) {
  const e = sql`(SELECT ${endpoint.timeouts ?? 0} AS timeouts, ${endpoint.slowUntil ?? null} AS slow_until,
    ${endpoint.rateLimit ?? null} AS rate_limit, ${endpoint.rateNextAt ?? null} AS rate_next_at) e`;
  const [row] = evaluate(
    sql`SELECT ${claimAllowance(sqliteDialect, sql`${now}`, sql`${perEndpoint}`)} AS allowance,
      ${rateFrom(sqliteDialect, sql`${now}`)} AS rate_from, ${WRITES_ON_CLAIM} AS writes FROM ${e}`,
  );
  return { allowance: row?.allowance, rateFrom: row?.rate_from, writes: row?.writes === 1 };
}
const allowance = (endpoint: Endpoint, perEndpoint: number) => claimOf(endpoint, perEndpoint).allowance;

describe("the claim's allowance", () => {
  it("allows perEndpoint to an endpoint with no limit and no run of timeouts", () => {
    expect(claimOf({ timeouts: SLOW_LANE_AFTER - 1 }, 2)).toMatchObject({ allowance: 2, writes: false });
  });

  it("allows one in the slow lane, and none while its pause lasts", () => {
    expect(claimOf({ timeouts: SLOW_LANE_AFTER }, 2)).toMatchObject({ allowance: 1, writes: true });
    expect(allowance({ timeouts: SLOW_LANE_AFTER }, 0)).toBe(0);
    expect(allowance({ timeouts: 9, slowUntil: now + 1 }, 2)).toBe(0);
    expect(allowance({ timeouts: 9, slowUntil: now }, 2)).toBe(1);
  });

  it("allows a rate-limited endpoint the starts its schedule has left within a second, 1.2 s / limit apart", () => {
    expect(allowance({ rateLimit: 10 }, 100)).toBe(9);
    expect(allowance({ rateLimit: 12 }, 100)).toBe(10);
    expect(allowance({ rateLimit: 10 }, 3)).toBe(3);
    expect(allowance({ rateLimit: 10, rateNextAt: now - 60_000 }, 100)).toBe(9);
    // The schedule runs 1,080 ms ahead: nothing within the second; from 999 ms ahead, one.
    expect(allowance({ rateLimit: 10, rateNextAt: now + 1_080 }, 100)).toBe(0);
    expect(allowance({ rateLimit: 10, rateNextAt: now + 1_000 }, 100)).toBe(0);
    expect(allowance({ rateLimit: 10, rateNextAt: now + 999 }, 100)).toBe(1);
    expect(allowance({ rateLimit: 10, rateNextAt: now + 880 }, 100)).toBe(1);
    expect(allowance({ rateLimit: 10, rateNextAt: now + 879 }, 100)).toBe(2);
    expect(claimOf({ rateLimit: 1 }, 100)).toMatchObject({ allowance: 1, writes: true });
  });

  it("takes the smaller of the slow lane's and the rate's", () => {
    expect(allowance({ rateLimit: 10, timeouts: SLOW_LANE_AFTER }, 5)).toBe(1);
    expect(allowance({ rateLimit: 10, rateNextAt: now + 5_000, timeouts: SLOW_LANE_AFTER }, 5)).toBe(0);
  });

  it("starts a schedule now, or where it runs ahead", () => {
    expect(claimOf({}, 1).rateFrom).toBe(now);
    expect(claimOf({ rateNextAt: now - 5 }, 1).rateFrom).toBe(now);
    expect(claimOf({ rateNextAt: now + 5 }, 1).rateFrom).toBe(now + 5);
  });
});

/** A due delivery: its owner and place in its endpoint's queue, within its endpoint's allowance or not. */
const candidate = (id: number, owner: number, place: number, nextAttemptAt = id, allowance = 100) =>
  [id, owner, place, nextAttemptAt, allowance] as const;

/** The ids `ownersTakeTurns` chooses of `candidates`, in id order. */
function chosen(candidates: ReadonlyArray<ReturnType<typeof candidate>>, perOwner: number, limit: number) {
  const table = sqliteDialect.table(
    "c",
    ["id", "owner", "place", "next_attempt_at", "allowance"].map((name) => [name, "bigint"] as const),
    candidates,
  );
  return evaluate(
    sql`WITH candidates AS (SELECT id, owner, place, next_attempt_at, allowance, 0 AS endpoint_id,
        NULL AS rate_from, NULL AS spacing, NULL AS held FROM ${table}),
      ${ownersTakeTurns({ perOwner: sql`${perOwner}`, limit: sql`${limit}` })} SELECT id FROM chosen ORDER BY id`,
  ).map((row) => row.id);
}

describe("the owners' turns", () => {
  it("takes the owners' work in turns, not by due time: an owner's large backlog does not go first", () => {
    // Subscriber 7's ten endpoints were due long before the operator's (owner 0) one delivery.
    const backlog = Array.from({ length: 10 }, (_, index) => candidate(index + 1, 7, 1, index));
    const operator = candidate(50, 0, 1, 1_000);
    expect(chosen([...backlog, operator], 16, 2)).toEqual([1, 50]);
    expect(chosen([...backlog, operator], 16, 11)).toContain(50);
  });

  it("takes at most perOwner of an owner, and at most limit in all", () => {
    const work = [candidate(1, 7, 1), candidate(2, 7, 1), candidate(3, 7, 1), candidate(4, 0, 1)];
    expect(chosen(work, 2, 10)).toEqual([1, 2, 4]);
    expect(chosen(work, 2, 2)).toEqual([1, 4]);
    expect(chosen(work, 2, 0)).toEqual([]);
    expect(chosen(work, 0, 10)).toEqual([]);
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
    // Turns: owner 7 takes 1 then 3 then 2 then 4; owner 9 takes 5 then 6: round by round 1, 5, 3, 6, 2, 4.
    expect(chosen(work, 10, 2)).toEqual([1, 5]);
    expect(chosen(work, 10, 4)).toEqual([1, 3, 5, 6]);
    expect(chosen(work, 10, 5)).toEqual([1, 2, 3, 5, 6]);
  });

  it("breaks ties of place and due time by id", () => {
    expect(chosen([candidate(9, 1, 1, 5), candidate(3, 1, 1, 5)], 1, 5)).toEqual([3]);
    expect(chosen([candidate(9, 1, 1, 5), candidate(3, 2, 1, 5)], 1, 5)).toEqual([3, 9]);
  });

  it("takes none past its endpoint's allowance", () => {
    const work = [candidate(1, 7, 1, 1, 1), candidate(2, 7, 2, 2, 1), candidate(3, 8, 1, 3, 0)];
    expect(chosen(work, 10, 10)).toEqual([1]);
  });
});

describe("the claimed rows' starts", () => {
  it("spaces a rate-limited endpoint's chosen rows from its schedule by place, and leaves the others' unset", () => {
    // Endpoint 1 (limited: schedule 100 ms ahead, 120 ms apart) has places 1-3 due; endpoint 2 none.
    const table = sqliteDialect.table(
      "c",
      ["id", "owner", "place", "endpoint_id", "rate_from", "spacing", "held"].map(
        (name) => [name, "bigint"] as const,
      ),
      [
        [1, 0, 1, 1, now + 100, 120, 1],
        [2, 0, 2, 1, now + 100, 120, 1],
        [3, 0, 3, 1, now + 100, 120, 1],
        [4, 0, 1, 2, null, null, null],
      ],
    );
    const starts = evaluate(
      sql`WITH candidates AS (SELECT id, owner, place, id AS next_attempt_at, 100 AS allowance, endpoint_id,
          rate_from, spacing, held FROM ${table}),
        ${ownersTakeTurns({ perOwner: sql`${10}`, limit: sql`${3}` })}
        SELECT c.id, ${startFromPlace(sql`${now}`)}, c.held FROM chosen c ORDER BY c.id`,
    );
    // Owners' turns take an endpoint's first places: its rows' places are their ranks, so their starts.
    expect(starts).toEqual([
      { id: 1, start_in_ms: 100, held: 1 },
      { id: 2, start_in_ms: 220, held: 1 },
      { id: 4, start_in_ms: null, held: null },
    ]);
  });
});
