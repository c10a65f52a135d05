import Router from "@koa/router";
import { addSessionRoutes, type SessionRoutesOptions } from "@plant-store/app-shell/http";
import type { RouteTable } from "../access/route-table.js";

/**
 * The store page's way in (app-shell's, shared with the receiver's page): a sign-in code for the admin
 * token, a session for a code or the token, and signing out. The handlers are app-shell's router,
 * dispatched to from these rows (it declares the same three routes), so the access rules stay here.
 */
export function sessionRoutes(options: Omit<SessionRoutesOptions, "guard" | "before">): RouteTable {
  const sessions = new Router();
  addSessionRoutes(sessions, options);
  const handler = sessions.routes();
  return [
    { method: "POST", path: "/login-codes", access: "operator", handler },
    { method: "POST", path: "/sessions", access: "public", handler },
    { method: "DELETE", path: "/sessions/current", access: "operator", handler },
  ];
}
