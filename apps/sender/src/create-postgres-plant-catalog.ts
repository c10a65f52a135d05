import { newWebhookId } from "@plant-store/sender";
import { type PostgresOutbox, withTransaction } from "@plant-store/sender/postgres";
import type pg from "pg";
import { createGroupCommit, type GroupOutcome } from "./create-group-commit.js";
import { IdempotencyConflictError } from "./idempotency-conflict-error.js";
import { InvalidPlantError } from "./invalid-plant-error.js";
import { newPlantPayload } from "./new-plant-payload.js";
import type { AddPlantResult, AddRequest, PlantCatalog } from "./plant-catalog.js";
import { type PlantRow, replayOf, toCatalogPlant } from "./plant-row.js";
import { requestHash } from "./request-hash.js";
import { LEGACY_PLANTS_MIGRATION, storePlantsSchema } from "./store-plants-schema.js";

const UNIQUE_VIOLATION = "23505";
// Serialises the table's creation (and a 0.1 migration) when several store processes start at once.
const MIGRATION_LOCK = 0x706c6174;

/** Plants in the outbox's PostgreSQL database: the plant and its message commit in one transaction. */
export async function createPostgresPlantCatalog(
  pool: pg.Pool,
  outbox: PostgresOutbox,
): Promise<PlantCatalog> {
  await withTransaction(pool, async (client) => {
    // A complete schema is only looked at: DDL, even IF NOT EXISTS, takes locks a running store would wait on.
    const legacyPlants = () =>
      client.query(
        "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('plants') AND attname = 'body' AND NOT attisdropped",
      );
    const exists = await client.query("SELECT 1 WHERE to_regclass('store_plants') IS NOT NULL");
    if (exists.rowCount && !(await legacyPlants()).rowCount) return;
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(storePlantsSchema("BIGSERIAL PRIMARY KEY"));
    if ((await legacyPlants()).rowCount) {
      await client.query(LEGACY_PLANTS_MIGRATION);
      await client.query(
        "SELECT setval(pg_get_serial_sequence('store_plants', 'id'), COALESCE((SELECT max(id) FROM store_plants), 0) + 1, false)",
      );
    }
  });

  async function addIn(client: pg.PoolClient, { name, tag, key }: AddRequest): Promise<AddPlantResult> {
    const hash = requestHash({ name, tag });
    if (key !== undefined) {
      const seen = await client.query<PlantRow>("SELECT * FROM store_plants WHERE idempotency_key = $1", [
        key,
      ]);
      if (seen.rows[0]) return replayOf(seen.rows[0], hash);
    }
    // Refused before anything is written: in a group, only a database error can follow a write.
    const payloadFor = newPlantPayload({ name, tag });
    const webhookId = newWebhookId();
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO store_plants (name, tag, webhook_id, idempotency_key, request_hash, created_at)
       VALUES ($1, $2, $3, $4, $5, (extract(epoch FROM statement_timestamp()) * 1000)::bigint) RETURNING id`,
      [name, tag ?? null, webhookId, key ?? null, key === undefined ? null : hash],
    );
    const id = Number(inserted.rows[0]?.id);
    const { deliveries } = await outbox.enqueue({ payload: payloadFor(id), webhookId }, { client });
    const row = await client.query<PlantRow>(
      "UPDATE store_plants SET queued = $1 WHERE id = $2 RETURNING *",
      [deliveries, id],
    );
    return { plant: toCatalogPlant(row.rows[0] as PlantRow), queued: deliveries, replayed: false };
  }

  // Requests arriving while a transaction is prepared or committed share the next one: one WAL flush
  // for all. A refusal (409, 400) happens before its plant writes anything, so it leaves the group
  // intact; a database error rolls the whole group back, and each of its plants is then tried alone.
  const addGrouped = createGroupCommit<AddRequest, AddPlantResult>(async (items) => {
    const settle = async (client: pg.PoolClient, item: AddRequest): Promise<GroupOutcome<AddPlantResult>> => {
      try {
        return { ok: true, value: await addIn(client, item) };
      } catch (error) {
        if (error instanceof IdempotencyConflictError || error instanceof InvalidPlantError)
          return { ok: false, error };
        throw error;
      }
    };
    try {
      return await withTransaction(pool, async (client) => {
        const outcomes: Array<GroupOutcome<AddPlantResult>> = [];
        for (const item of items) outcomes.push(await settle(client, item));
        return outcomes;
      });
    } catch (error) {
      if (items.length === 1) return [{ ok: false, error }];
      return Promise.all(
        items.map((item) =>
          withTransaction(pool, (client) => settle(client, item)).catch((alone: unknown) => ({
            ok: false as const,
            error: alone,
          })),
        ),
      );
    }
  });

  return {
    async add(input, idempotencyKey) {
      try {
        return await addGrouped({ name: input.name, tag: input.tag, key: idempotencyKey });
      } catch (error) {
        // Two requests with one new key raced: the loser's insert waited for the winner's commit and
        // failed; looking again finds the winner's plant.
        if (idempotencyKey !== undefined && (error as { code?: unknown }).code === UNIQUE_VIOLATION)
          return addGrouped({ name: input.name, tag: input.tag, key: idempotencyKey });
        throw error;
      }
    },
    async list(limit) {
      return (
        await pool.query<PlantRow>("SELECT * FROM store_plants ORDER BY id DESC LIMIT $1", [limit])
      ).rows.map(toCatalogPlant);
    },
    async plantIdsByWebhookId(webhookIds) {
      const rows = await pool.query<{ id: string; webhook_id: string }>(
        "SELECT id, webhook_id FROM store_plants WHERE webhook_id = ANY($1::text[])",
        [webhookIds],
      );
      return new Map(rows.rows.map((row) => [row.webhook_id, Number(row.id)]));
    },
  };
}
