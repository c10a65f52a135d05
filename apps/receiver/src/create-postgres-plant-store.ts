import type pg from "pg";
import { PlantNotStorableError } from "./plant-not-storable-error.js";
import type { PlantStore, ReceivedPlant } from "./plant-store.js";

interface Row {
  webhook_id: string;
  plant_id: string;
  name: string;
  tag: string | null;
  received_at: Date;
}

// BIGINT comes back as a string; the contract keeps ids in the safe-integer range, so Number() is exact.
const toPlant = (row: Row): ReceivedPlant => ({
  webhookId: row.webhook_id,
  id: Number(row.plant_id),
  name: row.name,
  ...(row.tag === null ? {} : { tag: row.tag }),
  receivedAt: row.received_at.toISOString(),
});

/** Creates the table (serialised with an advisory lock, as several instances may start together). */
export async function createPostgresPlantStore(pool: pg.Pool): Promise<PlantStore> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext('plant_receiver_plants'))");
    await client.query(`CREATE TABLE IF NOT EXISTS plants (
      seq BIGSERIAL PRIMARY KEY,
      webhook_id TEXT NOT NULL UNIQUE,
      plant_id BIGINT NOT NULL,
      name TEXT NOT NULL,
      tag TEXT,
      received_at TIMESTAMPTZ NOT NULL
    )`);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return {
    async add(plant, webhookId, receivedAt) {
      try {
        const { rows } = await pool.query<Row>(
          `INSERT INTO plants (webhook_id, plant_id, name, tag, received_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (webhook_id) DO NOTHING
           RETURNING webhook_id, plant_id, name, tag, received_at`,
          [webhookId, plant.id, plant.name, plant.tag ?? null, receivedAt],
        );
        return rows[0] === undefined ? undefined : toPlant(rows[0]);
      } catch (error) {
        // Class 22, data exception: these values fail the same way every time; anything else (a lock,
        // a lost connection, a full disk) may pass on a retry and stays a 500.
        const code = (error as { code?: unknown }).code;
        if (typeof code === "string" && code.startsWith("22")) throw new PlantNotStorableError(error);
        throw error;
      }
    },
    async list(limit) {
      const { rows } = await pool.query<Row>(
        "SELECT webhook_id, plant_id, name, tag, received_at FROM plants ORDER BY seq DESC LIMIT $1",
        [limit],
      );
      return rows.map(toPlant);
    },
    async ping() {
      await pool.query("SELECT 1");
    },
  };
}
