import { createPathMatcher } from "./create-path-matcher.js";
import type { WebhookRoute } from "./create-webhook-receiver.js";

/**
 * The route a request's path is, matched as `createPathMatcher` matches one path (any case, with or
 * without a trailing slash), or `undefined`. The usual request, on a path exactly as configured,
 * costs one lookup.
 */
export function createRouteMatcher(
  routes: readonly WebhookRoute[],
): (requestPath: string) => WebhookRoute | undefined {
  const exact = new Map(routes.map((route) => [route.path, route]));
  const loose = routes.map((route) => ({ route, matches: createPathMatcher(route.path) }));
  return (requestPath) => exact.get(requestPath) ?? loose.find(({ matches }) => matches(requestPath))?.route;
}
