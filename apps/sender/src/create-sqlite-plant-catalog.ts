import {
  type BatchOutcome,
  createBatcher,
  IdempotencyConflictError,
  newWebhookId,
} from "@plant-store/sender";
import type { SqliteOutbox } from "@plant-store/sender/sqlite";
import { NEW_PLANT_EVENT, type PlantStoreEvents } from "@plant-store/types";
import { InvalidPlantError } from "./invalid-plant-error.js";
import { newPlantPayload } from "./new-plant-payload.js";
import type { AddPlantResult, AddRequest, PlantCatalog } from "./plant-catalog.js";
import { type PlantRow, replayOf, toCatalogPlant } from "./plant-row.js";
import { requestHash } from "./request-hash.js";
import { LEGACY_PLANTS_MIGRATION, storePlantsSchema } from "./store-plants-schema.js";

/** Plants in the outbox's own SQLite file: the plant and its message commit together. */
export function createSqlitePlantCatalog(outbox: SqliteOutbox<PlantStoreEvents>): PlantCatalog {
  const { db } = outbox;
  db.transaction(() => {
    db.exec(storePlantsSchema("INTEGER PRIMARY KEY AUTOINCREMENT"));
    const legacy = db.prepare("SELECT 1 FROM pragma_table_info('plants') WHERE name = 'body'").get();
    if (legacy) db.exec(LEGACY_PLANTS_MIGRATION);
  }).immediate();

  const byKey = db.prepare<[string], PlantRow>("SELECT * FROM store_plants WHERE idempotency_key = ?");
  const insert = db.prepare<
    [string, string | null, string, string | null, string | null, number],
    { id: number }
  >(
    `INSERT INTO store_plants (name, tag, webhook_id, idempotency_key, request_hash, created_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const setQueued = db.prepare<[number, number], PlantRow>(
    "UPDATE store_plants SET queued = ? WHERE id = ? RETURNING *",
  );

  function addIn(request: AddRequest): AddPlantResult {
    const { name, tag, key, orderingKey } = request;
    const hash = requestHash({ name, tag, orderingKey });
    if (key !== undefined) {
      const seen = byKey.get(key);
      if (seen) return replayOf(seen, hash);
    }
    // Refused before anything is written.
    const payloadFor = newPlantPayload({ name, tag });
    const webhookId = newWebhookId();
    const { id } = insert.get(
      name,
      tag ?? null,
      webhookId,
      key ?? null,
      key === undefined ? null : hash,
      Date.now(),
    ) as {
      id: number;
    };
    const { deliveries } = outbox.enqueueSync({
      eventType: NEW_PLANT_EVENT,
      payload: payloadFor(id),
      webhookId,
      ...(orderingKey === undefined ? {} : { orderingKey }),
    });
    return {
      plant: toCatalogPlant(setQueued.get(deliveries, id) as PlantRow),
      queued: deliveries,
      replayed: false,
    };
  }
  // Requests arriving together share one transaction. A refusal (409, 400) is decided before its plant
  // writes anything, so it leaves the batch intact without a savepoint per plant; any other error rolls
  // the whole batch back, and the batcher tries each plant alone.
  const grouped = createBatcher<AddRequest, AddPlantResult>({
    async flush(items) {
      return db
        .transaction(() =>
          items.map((item): BatchOutcome<AddPlantResult> => {
            try {
              return { ok: true, value: addIn(item) };
            } catch (error) {
              if (error instanceof IdempotencyConflictError || error instanceof InvalidPlantError)
                return { ok: false, error };
              throw error;
            }
          }),
        )
        .immediate();
    },
  });

  return {
    async add(input, idempotencyKey) {
      return grouped.submit({
        name: input.name,
        tag: input.tag,
        key: idempotencyKey,
        ...(input.orderingKey === undefined ? {} : { orderingKey: input.orderingKey }),
      });
    },
    async list(limit) {
      return db
        .prepare<[number], PlantRow>("SELECT * FROM store_plants ORDER BY id DESC LIMIT ?")
        .all(limit)
        .map(toCatalogPlant);
    },
    async plantIdsByWebhookId(webhookIds) {
      const rows = db
        .prepare<[string], { id: number; webhook_id: string }>(
          "SELECT id, webhook_id FROM store_plants WHERE webhook_id IN (SELECT value FROM json_each(?))",
        )
        .all(JSON.stringify(webhookIds));
      return new Map(rows.map((row) => [row.webhook_id, Number(row.id)]));
    },
  };
}
