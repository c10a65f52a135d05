import type { RouterMiddleware } from "@koa/router";
import type { RouteDeclaration } from "./route-declaration.js";

export type { Access } from "./route-declaration.js";

/** One route of the admin API, declared once: the router and the access rules are both made from it. */
export interface Route extends RouteDeclaration {
  handler: RouterMiddleware;
}

/** The routes of one resource. */
export type RouteTable = readonly Route[];
