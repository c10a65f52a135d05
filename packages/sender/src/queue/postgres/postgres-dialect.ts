import type { ColumnType, Dialect } from "../dialect.js";
import { row } from "../operation.js";
import { join, param, raw, sql } from "../sql.js";

/**
 * The database's clock in Unix ms, fixed for one statement. Every time the store compares or stores
 * (leases, due times, failing periods) comes from it, so workers on machines whose clocks disagree still
 * agree on when a lease ends: with each process's own clock, a machine running ahead would take over
 * leases early and attempt a delivery another worker is still sending.
 */
export const POSTGRES_NOW = raw("(extract(epoch FROM statement_timestamp()) * 1000)::bigint");

const arrayType = (type: ColumnType) => `${type}[]` as const;

/** PostgreSQL: `$n::type` placeholders, arrays for lists and `unnest` for row sets, row and advisory locks. */
export const postgresDialect: Dialect = {
  name: "postgresql",
  placeholder: (index, bound) => (bound.type ? `$${index}::${bound.type}` : `$${index}`),
  bind: (bound) => bound.value,
  isIn: (column, values, type) => sql`${column} = ANY(${param(values, arrayType(type))})`,
  inList: (column, list) => sql`${column} = ANY(${list})`,
  table(alias, columns, rows) {
    const arrays = columns.map(([, type], index) =>
      param(
        rows.map((values) => values[index] ?? null),
        arrayType(type),
      ),
    );
    const names = [...columns.map(([name]) => name), "n"].join(", ");
    return sql`unnest(${join(arrays, ", ")}) WITH ORDINALITY AS ${raw(alias)}(${raw(names)})`;
  },
  forUpdate: raw(" FOR UPDATE"),
  skipLocked: raw(" FOR UPDATE SKIP LOCKED"),
  *lock(key) {
    yield* row(sql`SELECT pg_advisory_xact_lock(${param(key, "bigint")})`);
  },
  subscribes: (eventTypes, eventType) =>
    sql`(${eventTypes} IS NULL OR EXISTS (SELECT 1 FROM json_array_elements_text(${eventTypes}::json) AS t(v)
      WHERE t.v = ${eventType} OR (right(t.v, 1) = '*' AND starts_with(${eventType}, left(t.v, -1)))))`,
  least: (a, b) => sql`LEAST(${a}, ${b})`,
  greatest: (a, b) => sql`GREATEST(${a}, ${b})`,
  indexedBy: () => "",
  fromIds: (ids, table, alias) =>
    raw(`FROM ${table} ${alias} WHERE ${alias}.id = ANY(ARRAY(SELECT id FROM ${ids} WHERE id IS NOT NULL))`),
  joinFirst: (alias, table, columns, rest) =>
    sql`CROSS JOIN LATERAL (SELECT ${raw(columns.map((name) => `x.${name}`).join(", "))} FROM ${raw(table)} x ${rest}) AS ${raw(alias)}`,
};
