export { MAX_ENDPOINTS } from "@plant-store/api";
export { type AdminAppOptions, createAdminApi, createAdminApp } from "./create-admin-app.js";
export { createMetrics, type StoreMetrics } from "./create-metrics.js";
export { openStore, type Store } from "./open-store.js";
export type { AddPlantResult, CatalogPlant, PlantCatalog } from "./plant-catalog.js";
export { type RunningStore, runServe } from "./run-serve.js";
export { type ServeConfig, ServeConfigSchema } from "./serve-config.js";
