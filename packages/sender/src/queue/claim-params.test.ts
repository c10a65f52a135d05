import { describe, expect, it } from "vitest";
import { CLAIM, claimValues, composedPerClock } from "./claim-params.js";
import type { ClaimPlan } from "./claim-plan.js";
import type { Step } from "./operation.js";
import { POSTGRES_NOW, postgresDialect } from "./postgres/postgres-dialect.js";
import { postgresStatements } from "./postgres/postgres-statements.js";
import type { QueueContext, StoreStatements } from "./queue-context.js";
import { param, raw, render, type Sql, sql } from "./sql.js";
import { sqliteDialect } from "./sqlite/sqlite-dialect.js";
import { sqliteStatements } from "./sqlite/sqlite-statements.js";

const plan = (overrides: Partial<ClaimPlan> = {}): ClaimPlan => ({
  workerId: "w1",
  limit: 16,
  leaseMs: 30_000,
  perEndpoint: 2,
  perOwner: 16,
  excludeOwners: [],
  excludeEndpointIds: [],
  skipDeliveryIds: [],
  keepBucketsOf: [],
  ...overrides,
});

describe("the claim's named parameters", () => {
  it("gives each its value from the plan", () => {
    const values = claimValues(
      plan({ excludeOwners: [3], excludeEndpointIds: [4, 5], skipDeliveryIds: [6], keepBucketsOf: [7, 8] }),
    );
    expect(values).toEqual({
      perEndpoint: 2,
      perOwner: 16,
      limit: 16,
      excludeOwners: [3],
      excludeEndpointIds: [4, 5],
      skipDeliveryIds: [6],
      keepBucketsOf: [7, 8],
      workerId: "w1",
      leaseMs: 30_000,
    });
    expect(Object.keys(values).sort()).toEqual(Object.keys(CLAIM).sort());
  });
});

describe("composedPerClock", () => {
  const limit = CLAIM.limit;
  it("composes a statement once per way the clock is written, and binds each call's values and clock", () => {
    let built = 0;
    const statement = composedPerClock<"limit">((now) => {
      built += 1;
      return sql`SELECT ${now} AS now LIMIT ${limit}`;
    });
    const first = statement(param(1, "bigint"), { limit: 5 });
    const second = statement(param(2, "bigint"), { limit: 6 });
    expect(built).toBe(1);
    expect(second.strings).toBe(first.strings);
    expect(render(first, postgresDialect)).toEqual({
      text: "SELECT $1::bigint AS now LIMIT $2::int",
      values: [1, 5],
    });
    expect(render(second, postgresDialect)).toEqual({
      text: "SELECT $1::bigint AS now LIMIT $2::int",
      values: [2, 6],
    });
    // The database's own clock is text: another statement, also composed once.
    const own = statement(POSTGRES_NOW, { limit: 7 });
    expect(statement(POSTGRES_NOW, { limit: 8 }).strings).toBe(own.strings);
    expect(built).toBe(2);
    expect(render(own, postgresDialect)).toEqual({
      text: "SELECT (extract(epoch FROM statement_timestamp()) * 1000)::bigint AS now LIMIT $1::int",
      values: [7],
    });
    // Each way of writing the clock its own statement: another text, another parameter type.
    expect(render(statement(raw("0"), { limit: 1 }), postgresDialect).text).toBe(
      "SELECT 0 AS now LIMIT $1::int",
    );
    expect(render(statement(param(3, "int"), { limit: 2 }), postgresDialect)).toEqual({
      text: "SELECT $1::int AS now LIMIT $2::int",
      values: [3, 2],
    });
    expect(render(statement(param(4, "bigint"), { limit: 5 }), postgresDialect).text).toBe(
      "SELECT $1::bigint AS now LIMIT $2::int",
    );
    expect(built).toBe(4);
    // A clock of text and a parameter is composed for its call alone, its own value kept.
    const mixed = statement(sql`${raw("1 + ")}${9}`, { limit: 10 });
    expect(render(mixed, postgresDialect)).toEqual({
      text: "SELECT 1 + $1 AS now LIMIT $2::int",
      values: [9, 10],
    });
    expect(built).toBe(5);
    statement(sql`${raw("1 + ")}${9}`, { limit: 10 });
    expect(built).toBe(6);
  });
});

/** The statements a claim asks for, answered as if `rows` were due. */
function claimStatements(store: StoreStatements, ctx: QueueContext, claim: ClaimPlan): Sql[] {
  const asked: Sql[] = [];
  const operation = store.writeAndClaim(ctx, [], claim);
  let step = operation.next();
  while (!step.done) {
    const current: Step = step.value;
    if (current.kind === "rows" || current.kind === "count") asked.push(current.sql);
    step = operation.next(
      current.kind === "rows" ? [{ id: 1, start_in_ms: null, held: null, endpoint_id: 1 }] : 1,
    );
  }
  return asked;
}

describe("the claim's statements", () => {
  // Composing its fragments and rendering its several-kB text at every call made an idle SQLite claim cost
  // about four times what it did before the claim was written once for both databases.
  it.each([
    ["sqlite", sqliteStatements, sqliteDialect, param(1_700_000_000_000, "bigint")],
    ["postgresql", postgresStatements, postgresDialect, POSTGRES_NOW],
  ] as const)(
    "on %s: the same text at every call, whatever the lists hold, each call's values bound",
    (_, store, dialect, now) => {
      const ctx = { dialect, store, now } as unknown as QueueContext;
      const idle = claimStatements(store, ctx, plan());
      const busy = claimStatements(
        store,
        ctx,
        plan({
          workerId: "w2",
          limit: 3,
          excludeEndpointIds: [4],
          excludeOwners: [5, 6],
          skipDeliveryIds: [7],
          keepBucketsOf: [8],
        }),
      );
      expect(busy.length).toBe(idle.length);
      for (const [index, statement] of busy.entries()) expect(statement.strings).toBe(idle[index]?.strings);
      const values = busy.flatMap((statement) => render(statement, dialect).values);
      expect(values).toContain("w2");
      expect(values).toContain(3);
      for (const list of [[4], [5, 6], [7], [8]])
        expect(values).toContainEqual(dialect === sqliteDialect ? JSON.stringify(list) : list);
    },
  );
});
