export { type AdminAppOptions, createAdminApp } from "./create-admin-app.js";
export { createMetrics, type StoreMetrics } from "./create-metrics.js";
export { MAX_ENDPOINTS } from "./max-endpoints.js";
export { openStore, type Store } from "./open-store.js";
export type { AddPlantResult, CatalogPlant, PlantCatalog } from "./plant-catalog.js";
export { type RunningStore, runServe } from "./run-serve.js";
export { type ServeConfig, ServeConfigSchema } from "./serve-config.js";
