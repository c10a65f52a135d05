import pg from "pg";

/** PostgreSQL's own counters, read from outside the measured processes. */
export interface PostgresCounters {
  /** Bytes of WAL written by the whole cluster since it began (`pg_current_wal_lsn()`). */
  walBytes: number;
  /** Committed transactions in `database` (`pg_stat_database.xact_commit`). */
  commits: number;
}

/**
 * Reads the cluster's WAL position and `database`'s commit count over a connection to `adminUrl`
 * (another database, so the reading itself does not count). Backends report their commits when
 * idle for a second or when they exit: read after the measured connections closed or went idle.
 */
export async function readPostgresCounters(adminUrl: string, database: string): Promise<PostgresCounters> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ wal_bytes: string; commits: string | null }>(
      `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS wal_bytes,
              (SELECT xact_commit FROM pg_stat_database WHERE datname = $1)::text AS commits`,
      [database],
    );
    const row = rows[0];
    if (row?.commits == null) throw new Error(`no pg_stat_database row for ${database}`);
    return { walBytes: Number(row.wal_bytes), commits: Number(row.commits) };
  } finally {
    await client.end();
  }
}
