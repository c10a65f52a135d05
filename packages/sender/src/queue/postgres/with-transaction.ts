import type pg from "pg";

/**
 * Runs `work` on a client of `pool` and hands it back. While the client is checked out, pg-pool no
 * longer listens for its errors: a connection the server ends between two statements (a restart, a
 * failover, `pg_terminate_backend`) would emit an 'error' no one handles and kill the process. So the
 * client is listened to here, and a client that failed is destroyed rather than handed back to the pool.
 * Should `work` throw, a transaction it left open is rolled back (outside one, ROLLBACK is only a notice).
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on("error", onError);
  try {
    return await work(client);
  } catch (error) {
    await client.query("ROLLBACK").catch((rollbackError: Error) => {
      broken ??= rollbackError;
    });
    throw error;
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

/** Runs `work` in a transaction on a client of `pool` (`withClient`): COMMIT when it resolves, ROLLBACK when it throws. */
export function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  });
}
