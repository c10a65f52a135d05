import type { NewPlant } from "@plant-store/types";

/** A plant as the store keeps it: the contract's plant plus what the store knows of its event. */
export type CatalogPlant = Pick<NewPlant, "id" | "name" | "tag"> & {
  /** The `webhook-id` of its New Plant event, shared by every endpoint's delivery. */
  webhookId: string;
  createdAt: Date;
};

export interface AddPlantResult {
  plant: CatalogPlant;
  /** Deliveries queued when the plant was added (the first answer's, for a repeated key). */
  queued: number;
  /** True when the idempotency key was seen with this very input: nothing new was added. */
  replayed: boolean;
}

/** What adding a plant takes: the plant, and the ordering key its New Plant event is queued with. */
export type AddPlantInput = Pick<NewPlant, "name" | "tag"> & { orderingKey?: string | undefined };

/** One add-plant request as a catalog queues it for its group commit. */
export type AddRequest = AddPlantInput & { key: string | undefined };

/**
 * The store's own plants, in the store's own table beside the delivery queue's, in the same database:
 * a plant and its New Plant message are written in one transaction.
 */
export interface PlantCatalog {
  /**
   * Adds a plant and queues its New Plant event. With an idempotency key seen before, answers as the
   * first time (same input) or throws `IdempotencyConflictError` (another input).
   */
  add(input: AddPlantInput, idempotencyKey?: string): Promise<AddPlantResult>;
  /** Newest first. */
  list(limit: number): Promise<CatalogPlant[]>;
  /** The plant each webhook id announced (deliveries carry the webhook id, not the plant). */
  plantIdsByWebhookId(webhookIds: readonly string[]): Promise<Map<string, number>>;
}
