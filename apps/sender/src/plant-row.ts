import { IdempotencyConflictError } from "@plant-store/sender";
import type { AddPlantResult, CatalogPlant } from "./plant-catalog.js";

/** A `store_plants` row as SQLite and PostgreSQL return it (BIGINT arrives as a string). */
export interface PlantRow {
  id: number | string;
  name: string;
  tag: string | null;
  webhook_id: string;
  request_hash: string | null;
  queued: number | string;
  created_at: number | string;
}

export function toCatalogPlant(row: PlantRow): CatalogPlant {
  const plant: CatalogPlant = {
    id: Number(row.id),
    name: row.name,
    webhookId: row.webhook_id,
    createdAt: new Date(Number(row.created_at)),
  };
  if (row.tag !== null) plant.tag = row.tag;
  return plant;
}

/** The answer to a key seen before: the first answer for the same input, a conflict for another. */
export function replayOf(row: PlantRow, hash: string): AddPlantResult {
  if (row.request_hash !== hash)
    throw new IdempotencyConflictError("This Idempotency-Key was already used with a different plant");
  return { plant: toCatalogPlant(row), queued: Number(row.queued), replayed: true };
}
