import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import type { ColumnType } from "./dialect.js";
import { render, type SqlValue, sql } from "./sql.js";
import { sqliteDialect } from "./sqlite/sqlite-dialect.js";
import { MAX_VALUES_ROWS, valuesTable } from "./values-table.js";

const db = new Database(":memory:");
afterAll(() => db.close());
const COLUMNS: ReadonlyArray<readonly [string, ColumnType]> = [
  ["id", "bigint"],
  ["body", "text"],
  ["status", "int"],
];
const read = (table: ReturnType<typeof valuesTable>) => {
  const { text, values } = render(sql`SELECT id, body, status, n FROM ${table} ORDER BY n`, sqliteDialect);
  return { text, rows: db.prepare(text).all(...values) };
};

describe("a row set bound as VALUES", () => {
  it("answers each row as given, with its position as n, and no row for the padding", () => {
    const rows: SqlValue[][] = [
      [1, '{"received":true}', 200],
      [2, null, null],
      [3, "ünïcode ✓", 503],
    ];
    const { text, rows: read3 } = read(valuesTable("u", COLUMNS, rows));
    expect(read3).toEqual(rows.map(([id, body, status], index) => ({ id, body, status, n: index + 1 })));
    // Three rows are bound as four (a NULL row): the text is the one every 3- or 4-row set has.
    expect(text).toBe(read(valuesTable("u", COLUMNS, [...rows, [4, "x", 1]])).text);
    expect(text).not.toBe(read(valuesTable("u", COLUMNS, [...rows, [4, "x", 1], [5, "y", 2]])).text);
  });

  it("answers no row for no rows", () => {
    expect(read(valuesTable("u", COLUMNS, [])).rows).toEqual([]);
  });

  it("goes as one JSON parameter on SQLite past MAX_VALUES_ROWS rows, answering the same", () => {
    const rows = Array.from({ length: MAX_VALUES_ROWS + 1 }, (_, index): SqlValue[] => [
      index,
      `b${index}`,
      index,
    ]);
    const { text, rows: answered } = read(sqliteDialect.table("u", COLUMNS, rows));
    expect(text).toContain("jsonb_each");
    expect(answered).toEqual(rows.map(([id, body, status], index) => ({ id, body, status, n: index + 1 })));
    expect(read(sqliteDialect.table("u", COLUMNS, rows.slice(0, MAX_VALUES_ROWS))).text).not.toContain(
      "json",
    );
  });
});
