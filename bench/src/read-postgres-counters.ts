import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";

/** PostgreSQL's own counters, read from outside the measured processes. */
export interface PostgresCounters {
  /** Bytes of WAL written by the whole cluster since it began (`pg_current_wal_lsn()`). */
  walBytes: number;
  /** Committed transactions in `database` (`pg_stat_database.xact_commit`). */
  commits: number;
  /**
   * CPU time the whole server has used, in µs: the postmaster with every child it has reaped (its
   * cutime/cstime) plus the live ones, from /proc. The server runs on this machine (the test cluster).
   */
  serverCpuMicros: number;
}

const TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** `/proc/<pid>/stat` fields after the command name (which may hold spaces): [state, ppid, ...]. */
function statFields(pid: number | string): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // exited meanwhile
  }
}

/** The server's CPU time in µs, found from one of its backends. */
function serverCpuMicros(backendPid: number): number {
  const postmaster = statFields(backendPid)?.[1];
  if (postmaster === undefined) throw new Error(`no /proc entry for PostgreSQL backend ${backendPid}`);
  // Fields (1-based in proc(5)) 14 utime, 15 stime, 16 cutime, 17 cstime; here shifted by 3.
  const own = statFields(postmaster) ?? [];
  let ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(own[index] ?? 0), 0);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields?.[1] === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks / TICKS_PER_SECOND) * 1_000_000;
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
    const { rows } = await client.query<{ wal_bytes: string; commits: string | null; pid: number }>(
      `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS wal_bytes,
              (SELECT xact_commit FROM pg_stat_database WHERE datname = $1)::text AS commits,
              pg_backend_pid() AS pid`,
      [database],
    );
    const row = rows[0];
    if (row?.commits == null) throw new Error(`no pg_stat_database row for ${database}`);
    return {
      walBytes: Number(row.wal_bytes),
      commits: Number(row.commits),
      serverCpuMicros: serverCpuMicros(row.pid),
    };
  } finally {
    await client.end();
  }
}
