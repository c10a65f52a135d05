import type { Dialect } from "../dialect.js";
import { param, raw, type SqlValue, sql } from "../sql.js";
import { MAX_VALUES_ROWS, valuesTable } from "../values-table.js";

/** SQLite: `?` placeholders, JSON for lists, bound VALUES or binary JSON for row sets, and no locks. */
export const sqliteDialect: Dialect = {
  name: "sqlite",
  placeholder: () => "?",
  bind: (bound) => (Array.isArray(bound.value) ? JSON.stringify(bound.value) : bound.value),
  // One value (the fan-out of every enqueueSync) as a plain parameter: json_each cost it about a tenth.
  isIn: (column, values) =>
    values.length === 1
      ? sql`${column} = ${values[0] as SqlValue}`
      : sql`${column} IN (SELECT value FROM json_each(${param(values)}))`,
  inList: (column, list) => sql`${column} IN (SELECT value FROM json_each(${list}))`,
  // Past 64 rows one parameter, jsonb_each: json_each made each row text again for every column read.
  table(alias, columns, rows) {
    if (rows.length <= MAX_VALUES_ROWS) return valuesTable(alias, columns, rows);
    const picked = columns.map(([name], index) => `json_extract(value, '$[${index}]') AS ${name}`).join(", ");
    return sql`(SELECT ${raw(picked)}, key + 1 AS n FROM jsonb_each(${JSON.stringify(rows)})) AS ${raw(alias)}`;
  },
  forUpdate: raw(""),
  skipLocked: raw(""),
  *lock() {},
  subscribes: (types, type) =>
    sql`(${types} IS NULL OR EXISTS (SELECT 1 FROM json_each(${types}) AS t WHERE t.value = ${type}
      OR (substr(t.value, -1) = '*' AND substr(${type}, 1, length(t.value) - 1) = substr(t.value, 1, length(t.value) - 1))))`,
  least: (a, b) => sql`min(${a}, ${b})`,
  greatest: (a, b) => sql`max(${a}, ${b})`,
  indexedBy: (index) => `INDEXED BY ${index}`,
  fromIds: (ids, table, alias) =>
    raw(`FROM ${ids} CROSS JOIN ${table} ${alias} WHERE ${alias}.id = ${ids}.id`),
  // CROSS JOIN keeps the outer rows first: each looks up its own few rows, never the reverse.
  joinFirst: (alias, table, _columns, rest) =>
    sql`CROSS JOIN ${raw(`${table} AS ${alias}`)} ON ${raw(alias)}.id IN (SELECT x.id FROM ${raw(table)} x ${rest})`,
};
