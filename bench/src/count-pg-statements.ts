import pg from "pg";

let statements = 0;
let installed = false;

/**
 * Counts, client-side, every statement this process sends through node-postgres (`pg`): each
 * `Client#query` call, from any pool, the outbox's and graphile-worker's alike (both resolve the
 * same `pg`). The wrapper is installed on the prototype, the way OpenTelemetry's pg
 * instrumentation counts queries; the cluster's own pg_stat_statements would need a preload
 * setting the test cluster is not started with. Returns a reader of the running total.
 */
export function countPgStatements(): () => number {
  if (!installed) {
    installed = true;
    const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
    pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
      statements += 1;
      return query.apply(this, args);
    } as typeof pg.Client.prototype.query;
  }
  return () => statements;
}
