// The slice of the store app (`plant-store`, apps/sender) the ingest bench drives, loaded at run
// time like the sender library (src/sender-api.ts): a missing or changed app makes the scenario
// report "skipped: <reason>" instead of breaking the bench's build.
import type { RequestListener } from "node:http";

export interface BenchCatalogPlant {
  id: number;
  name: string;
  tag?: string;
  webhookId: string;
  createdAt: Date;
}

/** The store's `PlantCatalog` (apps/sender/src/plant-catalog.ts). */
export interface BenchPlantCatalog {
  add(
    input: { name: string; tag?: string | undefined },
    idempotencyKey?: string,
  ): Promise<{ plant: BenchCatalogPlant; queued: number; replayed: boolean }>;
  list(limit: number): Promise<BenchCatalogPlant[]>;
  plantIdsByWebhookId(webhookIds: readonly string[]): Promise<Map<string, number>>;
}

export interface BenchStoreOutbox {
  addEndpoint(input: { url: string; token: string; secrets: string[] }): Promise<{ id: number }>;
  listDeliveries(options?: { limit?: number }): Promise<unknown[]>;
}

export interface StoreApi {
  openStore(
    target: string,
  ): Promise<{ outbox: BenchStoreOutbox; plants: BenchPlantCatalog; close(): Promise<void> }>;
  createAdminApp(options: {
    outbox: unknown;
    plants: BenchPlantCatalog;
    adminToken: string;
    registry: unknown;
  }): { callback(): RequestListener };
  createMetrics(): { registry: unknown };
}

/** What the store admin server answers to `{ type: "count" }`: what its storage really holds. */
export interface StoreCount {
  plants: number;
  deliveries: number;
}

export class StoreUnavailableError extends Error {
  readonly code = "ERR_STORE_UNAVAILABLE";
  override readonly name = "StoreUnavailableError";
}

/** Loads the store app's exports, or throws `StoreUnavailableError` naming what is missing. */
export async function loadStoreApi(): Promise<StoreApi> {
  // The app's package.json has no `exports` (it is an app, not a library): its bare name does not
  // resolve, its built entry does. The bare name is tried first, for when it gains `exports`.
  const specifiers = ["plant-store", "plant-store/dist/index.js"];
  const failures: string[] = [];
  let api: Record<string, unknown> | undefined;
  for (const specifier of specifiers) {
    try {
      api = (await import(specifier)) as Record<string, unknown>;
      break;
    } catch (error) {
      failures.push(`${specifier}: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  if (api === undefined) throw new StoreUnavailableError(`plant-store not loadable (${failures.join("; ")})`);
  const missing = ["openStore", "createAdminApp", "createMetrics"].filter(
    (name) => typeof api[name] !== "function",
  );
  if (missing.length > 0)
    throw new StoreUnavailableError(`plant-store does not export ${missing.join(", ")}`);
  return api as unknown as StoreApi;
}
