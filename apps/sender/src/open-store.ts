import type { PortalCredentialRows } from "@plant-store/api";
import type { Outbox, SecretsCipher } from "@plant-store/sender";
import { PLANT_STORE_WEBHOOKS } from "@plant-store/types";
import type { PlantCatalog } from "./plant-catalog.js";
import { preparePrivateSqliteFile } from "./prepare-private-sqlite-file.js";

export const isPostgresUrl = (target: string) => /^postgres(ql)?:\/\//.test(target);

/**
 * The store's database: the delivery queue and the store's own plants, side by side. The queue knows the
 * contract's webhooks (`PLANT_STORE_WEBHOOKS`): every message is a New Plant checked against its schema,
 * and a subscription must name it.
 */
export interface Store {
  outbox: Outbox;
  plants: PlantCatalog;
  /** Subscribers' portal links and sessions (`createPortalAccess` uses them). */
  portalCredentials: PortalCredentialRows;
  /** Rewrites every endpoint's token and secrets under the cipher's first key; answers how many changed. */
  reencryptEndpoints(): Promise<number>;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** An idle database connection lost (PostgreSQL). */
  onError?: (error: Error) => void;
  /** Encrypts endpoint tokens and signing secrets at rest. */
  secretsCipher?: SecretsCipher | undefined;
}

/**
 * Opens the store named by `--db`: a postgres:// URL, or a SQLite file (its folder is created 0700, its
 * files 0600).
 * Each driver is imported only when used, so SQLite users never load pg and vice versa.
 */
export async function openStore(target: string, options: OpenStoreOptions = {}): Promise<Store> {
  const { onError, secretsCipher } = options;
  if (isPostgresUrl(target)) {
    const { default: pg } = await import("pg");
    const { createPostgresOutbox } = await import("@plant-store/sender/postgres");
    const { createPostgresPlantCatalog } = await import("./create-postgres-plant-catalog.js");
    // Without a lock timeout, a table lock held elsewhere would hang every write (and the admin request
    // waiting on it) for as long as the lock is held, instead of failing clearly.
    const pool = new pg.Pool({ connectionString: target, max: 10, lock_timeout: 5000 });
    // An idle pooled connection the server ends (restart, failover) is an 'error' event on the pool;
    // with no listener it would be an uncaught exception that kills the process.
    pool.on("error", (error) => onError?.(error));
    // The plants' group commits, one group at a time, on a connection of their own in pipeline mode: a
    // statement is sent without waiting for the one before (BEGIN with the ids, COMMIT behind the insert).
    // Only there: nothing else the store sends is written for it.
    const writer = new pg.Pool({ connectionString: target, max: 1, lock_timeout: 5000, pipeline: true });
    writer.on("error", (error) => onError?.(error));
    try {
      const outbox = await createPostgresOutbox(pool, {
        catalog: PLANT_STORE_WEBHOOKS,
        ...(onError ? { onError } : {}),
        ...(secretsCipher ? { secretsCipher } : {}),
      });
      const plants = await createPostgresPlantCatalog(pool, outbox, writer);
      const { createPostgresPortalCredentials } = await import("@plant-store/api/postgres");
      const portalCredentials = await createPostgresPortalCredentials(pool);
      return {
        outbox,
        plants,
        portalCredentials,
        reencryptEndpoints: () => outbox.reencryptEndpoints(),
        async close() {
          await outbox.close();
          await writer.end();
          await pool.end();
        },
      };
    } catch (error) {
      await writer.end();
      await pool.end();
      throw error;
    }
  }
  preparePrivateSqliteFile(target);
  const { createSqliteOutbox } = await import("@plant-store/sender/sqlite");
  const { createSqlitePlantCatalog } = await import("./create-sqlite-plant-catalog.js");
  const { createSqlitePortalCredentials } = await import("@plant-store/api");
  const outbox = createSqliteOutbox(target, {
    catalog: PLANT_STORE_WEBHOOKS,
    ...(secretsCipher ? { secretsCipher } : {}),
  });
  // Every connection the store opens zeroes what it deletes or rewrites. Without it each update of an
  // endpoint row (the worker's failing-since, a rotation) left the row's old copy in the page's free
  // space, and `endpoints re-encrypt` run beside a running `serve` left values under the old key in
  // the file. FAST would leave freelist pages as they were; ON costs a little more writing.
  outbox.db.pragma("secure_delete = ON");
  try {
    const plants = createSqlitePlantCatalog(outbox);
    return {
      outbox,
      plants,
      portalCredentials: createSqlitePortalCredentials(outbox),
      reencryptEndpoints: () => outbox.reencryptEndpoints(),
      close: () => outbox.close(),
    };
  } catch (error) {
    await outbox.close();
    throw error;
  }
}
