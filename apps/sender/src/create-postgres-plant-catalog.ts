import {
  type BatchOutcome,
  createBatcher,
  IdempotencyConflictError,
  newWebhookId,
} from "@plant-store/sender";
import { type PostgresOutbox, withTransaction } from "@plant-store/sender/postgres";
import { NEW_PLANT_EVENT, type PlantStoreEvents } from "@plant-store/types";
import type pg from "pg";
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
  outbox: PostgresOutbox<PlantStoreEvents>,
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

  /**
   * A whole group in at most four statements: the keys it carries looked up at once, its plants' ids
   * drawn, every message and delivery queued (`enqueueMany`) and every plant inserted, each a multi-row
   * statement. A key seen before answers as `replayOf` says; a key twice in one group answers the
   * second as a repeat of the first.
   */
  async function addGroup(
    client: pg.PoolClient,
    items: readonly AddRequest[],
  ): Promise<Array<BatchOutcome<AddPlantResult>>> {
    const keys = [...new Set(items.flatMap((item) => (item.key === undefined ? [] : [item.key])))];
    const seen = new Map(
      keys.length === 0
        ? []
        : (
            await client.query<PlantRow & { idempotency_key: string }>(
              "SELECT * FROM store_plants WHERE idempotency_key = ANY($1::text[])",
              [keys],
            )
          ).rows.map((row) => [row.idempotency_key, row]),
    );
    type New = { item: AddRequest; hash: string; webhookId: string; payloadFor: (id: number) => unknown };
    const fresh: New[] = [];
    const firstOfKey = new Map<string, New>();
    const plan = items.map((item): BatchOutcome<AddPlantResult> | New | { repeatOf: New; hash: string } => {
      const hash = requestHash({ name: item.name, tag: item.tag, orderingKey: item.orderingKey });
      try {
        const row = item.key === undefined ? undefined : seen.get(item.key);
        if (row) return { ok: true, value: replayOf(row, hash) };
        const first = item.key === undefined ? undefined : firstOfKey.get(item.key);
        if (first) return { repeatOf: first, hash };
        // Refused before anything is written.
        const added: New = {
          item,
          hash,
          webhookId: newWebhookId(),
          payloadFor: newPlantPayload({ name: item.name, tag: item.tag }),
        };
        fresh.push(added);
        if (item.key !== undefined) firstOfKey.set(item.key, added);
        return added;
      } catch (error) {
        if (error instanceof IdempotencyConflictError || error instanceof InvalidPlantError)
          return { ok: false, error };
        throw error;
      }
    });
    const stored = new Map<New, AddPlantResult>();
    if (fresh.length > 0) {
      const ids = (
        await client.query<{ id: string }>(
          "SELECT nextval(pg_get_serial_sequence('store_plants', 'id')) AS id FROM generate_series(1, $1::int)",
          [fresh.length],
        )
      ).rows.map((row) => Number(row.id));
      const queued = await outbox.enqueueMany(
        fresh.map((added, index) => ({
          eventType: NEW_PLANT_EVENT,
          payload: added.payloadFor(ids[index] as number),
          webhookId: added.webhookId,
          ...(added.item.orderingKey === undefined ? {} : { orderingKey: added.item.orderingKey }),
        })),
        { client },
      );
      const rows = await client.query<PlantRow>(
        `INSERT INTO store_plants (id, name, tag, webhook_id, idempotency_key, request_hash, queued, created_at)
         SELECT *, (extract(epoch FROM statement_timestamp()) * 1000)::bigint
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[])
         RETURNING *`,
        [
          ids,
          fresh.map((added) => added.item.name),
          fresh.map((added) => added.item.tag ?? null),
          fresh.map((added) => added.webhookId),
          fresh.map((added) => added.item.key ?? null),
          fresh.map((added) => (added.item.key === undefined ? null : added.hash)),
          queued.map((result) => result.deliveries),
        ],
      );
      const byWebhookId = new Map(rows.rows.map((row) => [row.webhook_id, row]));
      fresh.forEach((added, index) => {
        const row = byWebhookId.get(added.webhookId) as PlantRow;
        stored.set(added, {
          plant: toCatalogPlant(row),
          queued: queued[index]?.deliveries ?? 0,
          replayed: false,
        });
      });
    }
    return plan.map((step) => {
      if ("ok" in step) return step;
      if ("repeatOf" in step) {
        const first = stored.get(step.repeatOf) as AddPlantResult;
        if (step.hash !== step.repeatOf.hash)
          return {
            ok: false,
            error: new IdempotencyConflictError(
              "This Idempotency-Key was already used with a different plant",
            ),
          };
        return { ok: true, value: { ...first, replayed: true } };
      }
      return { ok: true, value: stored.get(step) as AddPlantResult };
    });
  }

  // Requests arriving while a transaction is prepared or committed share the next one: one WAL flush
  // for all, and a fixed number of statements whatever the batch's size (addGroup). A refusal (409, 400)
  // is decided before anything is written, so it leaves the batch intact; a database error rolls the
  // whole batch back, and the batcher tries each plant alone.
  const grouped = createBatcher<AddRequest, AddPlantResult>({
    flush: (items) => withTransaction(pool, (client) => addGroup(client, items)),
  });
  return {
    async add(input, idempotencyKey) {
      const request: AddRequest = {
        name: input.name,
        tag: input.tag,
        key: idempotencyKey,
        ...(input.orderingKey === undefined ? {} : { orderingKey: input.orderingKey }),
      };
      try {
        return await grouped.submit(request);
      } catch (error) {
        // Two requests with one new key raced: the loser's insert waited for the winner's commit and
        // failed; looking again finds the winner's plant.
        if (idempotencyKey !== undefined && (error as { code?: unknown }).code === UNIQUE_VIOLATION)
          return grouped.submit(request);
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
