import type { NewPlant } from "@plant-store/types";

/** A plant as the receiver stored it: the contract's plant, and when and under which webhook id it came. */
export type ReceivedPlant = Pick<NewPlant, "id" | "name" | "tag"> & {
  webhookId: string;
  /** ISO 8601. */
  receivedAt: string;
};

/** Durable storage of received plants; one row per webhook id. */
export interface PlantStore {
  /**
   * Stores a plant. Returns `undefined` when this webhook id is already stored (a redelivery after a
   * crash between storing and acknowledging), so it is never inserted or announced twice.
   */
  add(plant: NewPlant, webhookId: string, receivedAt: Date): Promise<ReceivedPlant | undefined>;
  /** Newest first. */
  list(limit: number): Promise<ReceivedPlant[]>;
  /** Throws when the storage is unreachable (for /healthz). */
  ping(): Promise<void>;
}
