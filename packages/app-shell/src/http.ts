/**
 * The HTTP half of the shell alone (sessions, throttling, the bearer guard, the error boundary, static
 * pages), without the settings, logging and tracing start-up: what @plant-store/api bundles in, so that
 * importing it pulls none of the apps' process set-up or the tracing SDK.
 */
export { addSessionRoutes, type SessionRoutesOptions } from "./add-session-routes.js";
export { clientKey } from "./client-key.js";
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
export { HttpError, MethodNotAllowedError } from "./http-error.js";
export { mountRouter } from "./mount-router.js";
export { refuseRequest } from "./refuse-request.js";
export { refuseWhileThrottled } from "./refuse-while-throttled.js";
export { renderStaticPage, type StaticPage } from "./render-static-page.js";
