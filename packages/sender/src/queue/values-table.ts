import type { ColumnType } from "./dialect.js";
import type { Sql, SqlParam, SqlValue } from "./sql.js";

/** The most rows `valuesTable` binds; a larger row set goes as the dialect's one parameter. */
export const MAX_VALUES_ROWS = 64;

/**
 * `rows` as `Dialect.table` answers them (the named columns, and each row's 1-based position as `n`),
 * each value bound as a parameter of a VALUES list. On SQLite a row set read from one JSON parameter
 * cost a json_extract per column: a record's 37-row update 2.0M SQLite instructions against 1.4M so,
 * its insert of the attempts 0.80M against 0.58M. The list is padded with rows of NULLs (dropped by
 * their NULL `n`) to a power of two, so the statement's text, and with it the statement the driver
 * prepares and keeps, is one of 7 up to 64 rows rather than one per row count.
 */
export function valuesTable(
  alias: string,
  columns: ReadonlyArray<readonly [name: string, type: ColumnType]>,
  rows: ReadonlyArray<ReadonlyArray<SqlValue>>,
): Sql {
  let size = 1;
  while (size < rows.length) size *= 2;
  const width = columns.length + 1;
  const picked = columns.map(([name], index) => `column${index + 1} AS ${name}`).join(", ");
  const strings = [`(SELECT ${picked}, column${width} AS n FROM (VALUES (`];
  const params: SqlParam[] = [];
  for (let at = 0; at < size; at++) {
    const row = rows[at];
    for (let column = 0; column < width; column++) {
      if (at > 0 || column > 0) strings.push(column === 0 ? "), (" : ", ");
      const value = row === undefined ? null : column < columns.length ? (row[column] ?? null) : at + 1;
      params.push({ value, type: undefined });
    }
  }
  strings.push(`)) WHERE column${width} IS NOT NULL) AS ${alias}`);
  return { strings, params };
}
