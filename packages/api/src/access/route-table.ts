import type { RouterMiddleware } from "@koa/router";

/**
 * Who may call a route:
 * - `public`: anyone, without a credential (the pages, health, signing in, and `listen`'s relay, which
 *   checks the temporary endpoint's own bearer token);
 * - `operator`: the operator token or a store page's session; a subscriber's credential is answered 404,
 *   as for a path that does not exist, so it cannot even map what it may not use;
 * - `subscriber-or-operator`: those, or a subscriber's token or portal session (each handler then
 *   answers only that subscriber's objects).
 */
export type Access = "public" | "operator" | "subscriber-or-operator";

/** One route of the admin API, declared once: the router and the access rules are both made from it. */
export interface Route {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** A @koa/router path (`/endpoints/:id`); the OpenAPI document writes it `/endpoints/{id}`. */
  path: string;
  access: Access;
  handler: RouterMiddleware;
}

/** The routes of one resource. */
export type RouteTable = readonly Route[];
