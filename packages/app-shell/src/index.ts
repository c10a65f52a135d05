export {
  type AppEvent,
  type DeliveryAttempted,
  type PlantStored,
  readAppEvent,
  type WebhookHandled,
} from "./app-event.js";
export { ConfigError } from "./config-error.js";
export {
  createErrorBoundary,
  type ErrorAnswer,
  type ErrorBoundaryOptions,
} from "./create-error-boundary.js";
export { createLogger, type LoggerOptions, REDACT_PATHS } from "./create-logger.js";
export { createRegistry } from "./create-registry.js";
export { type DurationBounds, durationSetting } from "./duration-setting.js";
export { HttpError, MethodNotAllowedError } from "./http-error.js";
export { logPoolError } from "./log-pool-error.js";
export { mountRouter } from "./mount-router.js";
export { describeProblem, parseSettings, prefixedSources, type SettingSource } from "./parse-settings.js";
export {
  resolveTracingSettings,
  type TracingSettings,
  type TracingSettingsResult,
} from "./resolve-tracing-settings.js";
export { startTracing, type Tracing } from "./start-tracing.js";
export { type StopOnSignalsOptions, stopOnSignals } from "./stop-on-signals.js";
