// The slice of the store app (`plant-store`, apps/sender) the ingest bench drives, loaded at run
// time like the sender library (src/sender-api.ts): a missing or changed app makes the scenario
// report "skipped: <reason>" instead of breaking the bench's build.
import type * as Store from "plant-store";

export type BenchCatalogPlant = Store.CatalogPlant;
export type BenchPlantCatalog = Store.PlantCatalog;
export type BenchStoreOutbox = Store.Store["outbox"];

/** The store app's exports the bench drives, typed as the app exports them. */
export type StoreApi = Pick<typeof Store, "openStore" | "createAdminApp" | "createMetrics">;

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
  const specifiers = ["plant-store"];
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
