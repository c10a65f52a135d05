import type { NewPlant } from "@plant-store/types";

/** A plant as the receiver stored it. */
export interface StoredPlant {
  webhookId: string;
  id: number;
  name: string;
  tag: string | null;
  /** ISO 8601. */
  receivedAt: string;
}

/** Durable storage of received plants; one row per webhook id. */
export interface PlantStore {
  /**
   * Stores a plant. Returns `undefined` when this webhook id is already stored (a redelivery after a
   * crash between storing and acknowledging), so it is never inserted or announced twice.
   */
  add(plant: NewPlant, webhookId: string, receivedAt: Date): Promise<StoredPlant | undefined>;
  /** Newest first. */
  list(limit: number): Promise<StoredPlant[]>;
  /** Throws when the storage is unreachable (for /healthz). */
  ping(): Promise<void>;
}
