import {
  type BatchOutcome,
  createBatcher,
  IdempotencyConflictError,
  newWebhookId,
} from "@plant-store/sender";
import { type PostgresOutbox, withClient, withTransaction } from "@plant-store/sender/postgres";
import { NEW_PLANT_EVENT, type PlantStoreEvents } from "@plant-store/types";
import type pg from "pg";
import { GroupNotCommittedError } from "./group-not-committed-error.js";
import { InvalidPlantError } from "./invalid-plant-error.js";
import { newPlantPayload } from "./new-plant-payload.js";
import type { AddPlantResult, AddRequest, PlantCatalog } from "./plant-catalog.js";
import { type PlantRow, replayOf, toCatalogPlant } from "./plant-row.js";
import { requestHash } from "./request-hash.js";
import { LEGACY_PLANTS_MIGRATION, storePlantsSchema } from "./store-plants-schema.js";

const UNIQUE_VIOLATION = "23505";

// Named: parsed once per connection. Neither selects `*` (a prepared statement whose result columns a
// later migration changed would fail for as long as its connection lives).
const DRAW_IDS =
  "SELECT nextval(pg_get_serial_sequence('store_plants', 'id')) AS id FROM generate_series(1, $1::int)";
const INSERT_PLANTS = `WITH added AS (
  INSERT INTO store_plants (id, name, tag, webhook_id, idempotency_key, request_hash, queued, created_at)
  SELECT id, name, tag, webhook_id, idempotency_key, request_hash, queued,
    (extract(epoch FROM statement_timestamp()) * 1000)::bigint
  FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[])
    AS p(id, name, tag, webhook_id, idempotency_key, request_hash, queued)
  RETURNING created_at)
SELECT min(created_at) AS created_at FROM added`;
// Serialises the table's creation (and a 0.1 migration) when several store processes start at once.
const MIGRATION_LOCK = 0x706c6174;

/** Plants in the outbox's PostgreSQL database: the plant and its message commit in one transaction. */
export async function createPostgresPlantCatalog(
  pool: pg.Pool,
  outbox: PostgresOutbox<PlantStoreEvents>,
  writer: pg.Pool,
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
   * A whole group in three round trips on the writer's pipelined connection, each a fixed number of
   * statements whatever the group's size: BEGIN with its plants' ids drawn, every message and delivery
   * queued (`enqueueMany`), every plant inserted with COMMIT. The keys it carries are looked up at once
   * before (one more round trip, none without keys; a group that adds nothing opens no transaction). A
   * key seen before answers as `replayOf` says; a key twice in one group answers the second as a repeat
   * of the first.
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
    type New = {
      item: AddRequest;
      hash: string | null;
      webhookId: string;
      payloadFor: (id: number) => unknown;
    };
    const fresh: New[] = [];
    const firstOfKey = new Map<string, New>();
    const plan = items.map((item): BatchOutcome<AddPlantResult> | New | { repeatOf: New; hash: string } => {
      try {
        if (item.key !== undefined) {
          // Only a key's plant keeps the fingerprint of its request.
          const hash = requestHash({ name: item.name, tag: item.tag, orderingKey: item.orderingKey });
          const row = seen.get(item.key);
          if (row) return { ok: true, value: replayOf(row, hash) };
          const first = firstOfKey.get(item.key);
          if (first) return { repeatOf: first, hash };
        }
        // Refused before anything is written.
        const added: New = {
          item,
          hash: null,
          webhookId: newWebhookId(),
          payloadFor: newPlantPayload({ name: item.name, tag: item.tag }),
        };
        if (item.key !== undefined) {
          added.hash = requestHash({ name: item.name, tag: item.tag, orderingKey: item.orderingKey });
          firstOfKey.set(item.key, added);
        }
        fresh.push(added);
        return added;
      } catch (error) {
        if (error instanceof IdempotencyConflictError || error instanceof InvalidPlantError)
          return { ok: false, error };
        throw error;
      }
    });
    const stored = new Map<New, AddPlantResult>();
    if (fresh.length > 0) {
      // Sent together: the server runs the second as soon as the first is done, no round trip between.
      const [, drawn] = await Promise.all([
        client.query("BEGIN"),
        client.query<{ id: string }>({ name: "store-plant-ids", text: DRAW_IDS, values: [fresh.length] }),
      ]);
      const ids = drawn.rows.map((row) => Number(row.id));
      const queued = await outbox.enqueueMany(
        fresh.map((added, index) => ({
          eventType: NEW_PLANT_EVENT,
          payload: added.payloadFor(ids[index] as number),
          webhookId: added.webhookId,
          ...(added.item.orderingKey === undefined ? {} : { orderingKey: added.item.orderingKey }),
        })),
        { client },
      );
      const rows: PlantRow[] = fresh.map((added, index) => ({
        id: ids[index] as number,
        name: added.item.name,
        tag: added.item.tag ?? null,
        webhook_id: added.webhookId,
        request_hash: added.hash,
        queued: queued[index]?.deliveries ?? 0,
        created_at: 0,
      }));
      // COMMIT sent behind the insert: should the insert fail, the server ends the transaction with a
      // ROLLBACK instead, and the group is answered only once both are back.
      const [inserted, committed] = await Promise.all([
        client.query<{ created_at: string }>({
          name: "store-plants-insert",
          text: INSERT_PLANTS,
          values: [
            ids,
            rows.map((row) => row.name),
            rows.map((row) => row.tag),
            rows.map((row) => row.webhook_id),
            fresh.map((added) => added.item.key ?? null),
            rows.map((row) => row.request_hash),
            rows.map((row) => row.queued),
          ],
        }),
        client.query("COMMIT"),
      ]);
      if (committed.command !== "COMMIT") throw new GroupNotCommittedError(committed.command);
      // One statement's rows share its timestamp.
      const createdAt = inserted.rows[0]?.created_at ?? 0;
      fresh.forEach((added, index) => {
        const row = rows[index] as PlantRow;
        stored.set(added, {
          plant: toCatalogPlant({ ...row, created_at: createdAt }),
          queued: Number(row.queued),
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

  // Requests arriving while a group is prepared or committed share the next one: one WAL flush for all,
  // and a fixed number of round trips whatever its size (addGroup). A refusal (409, 400) is decided
  // before anything is written, so it leaves the group intact; a database error rolls the whole group
  // back, and the batcher tries each plant alone.
  const grouped = createBatcher<AddRequest, AddPlantResult>({
    // Its BEGIN and COMMIT are pipelined with the group's statements (`addGroup`); a failure rolls back.
    flush: (items) => withClient(writer, (client) => addGroup(client, items)),
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
