export { createHttpServer, type HttpServerOptions } from "@plant-store/app-shell";
export { type AppDeps, createApp, WEBHOOK_PATH } from "./create-app.js";
export { createMetrics, type Metrics } from "./create-metrics.js";
export {
  createPlantEvents,
  type OpenedStream,
  type PlantEvents,
  type PlantEventsOptions,
  type StreamRefusal,
} from "./create-plant-events.js";
export { createPostgresPlantStore } from "./create-postgres-plant-store.js";
export { createReadAccess, type ReadAccess, type ReadAccessOptions } from "./create-read-access.js";
export { createSqlitePlantStore } from "./create-sqlite-plant-store.js";
export {
  CONFIG_SOURCES,
  ConfigError,
  DEFAULT_EVENT_STREAM_LIMITS,
  DEFAULT_SERVER,
  DEFAULT_TIMEOUTS,
  LOG_LEVELS,
  loadConfig,
  MEMORY_DB_WARNING,
  type RawReceiverOptions,
  type ReceiverConfig,
} from "./load-config.js";
export { openStorage, type Storage, type StorageOptions } from "./open-storage.js";
export { PAGE_HEADERS, PAGE_HTML } from "./page-html.js";
export { PlantNotStorableError } from "./plant-not-storable-error.js";
export type { PlantStore, ReceivedPlant } from "./plant-store.js";
export { MAX_LOGGED_STRING, truncateForLog } from "./truncate-for-log.js";
