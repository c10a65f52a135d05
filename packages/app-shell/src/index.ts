export { addSessionRoutes, type SessionRoutesOptions } from "./add-session-routes.js";
export {
  type AlertRaised,
  type AppEvent,
  type CatchUpEventLogged,
  type DeliveryAttempted,
  type PlantStored,
  readAppEvent,
  type WebhookHandled,
} from "./app-event.js";
export { clientKey } from "./client-key.js";
export { ConfigError } from "./config-error.js";
export { type AuthThrottle, type AuthThrottleOptions, createAuthThrottle } from "./create-auth-throttle.js";
export { type AuthKind, type BearerGuardOptions, createBearerGuard } from "./create-bearer-guard.js";
export {
  type BrowserSession,
  type BrowserSessions,
  type BrowserSessionsOptions,
  createBrowserSessions,
} from "./create-browser-sessions.js";
export {
  createErrorBoundary,
  type ErrorAnswer,
  type ErrorBoundaryOptions,
} from "./create-error-boundary.js";
export { createHttpServer, type HttpServerOptions } from "./create-http-server.js";
export { createLogger, type LoggerOptions, REDACT_PATHS } from "./create-logger.js";
export { createRegistry } from "./create-registry.js";
export {
  createSampledWarning,
  type SampledWarning,
  type SampledWarningOptions,
  type WarningLogger,
} from "./create-sampled-warning.js";
export { type DurationBounds, durationSetting } from "./duration-setting.js";
export { HttpError, MethodNotAllowedError } from "./http-error.js";
export { logPoolError } from "./log-pool-error.js";
export { mountRouter } from "./mount-router.js";
export { describeProblem, parseSettings, prefixedSources, type SettingSource } from "./parse-settings.js";
export { refuseRequest } from "./refuse-request.js";
export { refuseWhileThrottled } from "./refuse-while-throttled.js";
export { renderStaticPage, type StaticPage } from "./render-static-page.js";
export {
  resolveTracingSettings,
  type TracingSettings,
  type TracingSettingsResult,
} from "./resolve-tracing-settings.js";
export { startTracing, type Tracing } from "./start-tracing.js";
export { type StopOnSignalsOptions, stopOnSignals } from "./stop-on-signals.js";
