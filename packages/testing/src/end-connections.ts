import pg from "pg";

/**
 * Ends every other session on the database at `url`, as a server restart or a failover does
 * (each gets FATAL 57P01 "terminating connection due to administrator command"). Returns how many.
 */
export async function endConnections(url: string): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return rowCount ?? 0;
  } finally {
    await admin.end();
  }
}
