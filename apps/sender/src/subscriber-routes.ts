/**
 * The admin routes a subscriber's credential may use, each answering only that subscriber's objects.
 * Everything else (plants, subscribers, metrics, the operator's sessions, `listen`) answers a
 * subscriber exactly as a path that does not exist: a 404, so it cannot even map what it may not use.
 */
const SUBSCRIBER_ROUTES: ReadonlyArray<readonly [method: string, path: RegExp]> = [
  ["GET", /^\/me$/],
  ["GET", /^\/endpoints$/],
  ["POST", /^\/endpoints$/],
  ["GET", /^\/endpoints\/[^/]+$/],
  ["PATCH", /^\/endpoints\/[^/]+$/],
  ["DELETE", /^\/endpoints\/[^/]+$/],
  ["POST", /^\/endpoints\/[^/]+\/(disable|enable|rotate-secret|verify|send-example)$/],
  ["GET", /^\/endpoint-health$/],
  ["GET", /^\/delivery-stats$/],
  ["GET", /^\/alerts$/],
  ["GET", /^\/deliveries$/],
  ["GET", /^\/deliveries\/[^/]+$/],
  ["POST", /^\/deliveries\/[^/]+\/retry$/],
  ["POST", /^\/replay$/],
  // Signing out of the portal (only a portal session may; a token is answered 403).
  ["DELETE", /^\/portal-sessions\/current$/],
];

export function isSubscriberRoute(method: string, path: string): boolean {
  // HEAD is answered as GET by the router.
  const asked = method === "HEAD" ? "GET" : method;
  return SUBSCRIBER_ROUTES.some(([allowed, pattern]) => allowed === asked && pattern.test(path));
}
