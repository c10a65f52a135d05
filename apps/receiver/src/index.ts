export { type AppDeps, createApp, WEBHOOK_PATH } from "./create-app.js";
export { createHttpServer, type HttpServerOptions } from "./create-http-server.js";
export { createLogger, REDACT_PATHS } from "./create-logger.js";
export { createMetrics, type Metrics } from "./create-metrics.js";
export { createPlantEvents, type PlantEvents } from "./create-plant-events.js";
export { createPostgresPlantStore } from "./create-postgres-plant-store.js";
export { createSqlitePlantStore } from "./create-sqlite-plant-store.js";
export {
  CONFIG_SOURCES,
  ConfigError,
  DEFAULT_TIMEOUTS,
  LOG_LEVELS,
  loadConfig,
  type RawReceiverOptions,
  type ReceiverConfig,
} from "./load-config.js";
export { openStorage, type Storage, type StorageOptions } from "./open-storage.js";
export { PAGE_HTML } from "./page-html.js";
export type { PlantStore, StoredPlant } from "./plant-store.js";
