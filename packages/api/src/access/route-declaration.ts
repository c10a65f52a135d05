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

/** What a route states but its handler: the document and the access rules are read from it. */
export interface RouteDeclaration {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** A @koa/router path (`/endpoints/:id`); the OpenAPI document writes it `/endpoints/{id}`. */
  path: string;
  access: Access;
}

/**
 * A route of your own as `createWebhookApi` takes it, without naming Koa's types, so that an Express or
 * Hono project's type check never loads them: any Koa middleware fits. Write the tables with
 * `RouteTable` from `@plant-store/api/koa`, which types the handler's `ctx`.
 */
export interface MountableRoute extends RouteDeclaration {
  handler: (context: never, next: () => Promise<unknown>) => unknown;
}
