import type { StaticPage } from "@plant-store/app-shell/http";
import type { RouteTable } from "../access/route-table.js";

/**
 * The pages: static, holding no data; they sign in and call the API with what they were given, on paths
 * relative to where they are served, so they work under any mount path.
 */
export function pageRoutes(pages: { operator: StaticPage; portal: StaticPage }): RouteTable {
  const serve =
    (page: StaticPage) => (ctx: { set(headers: Readonly<Record<string, string>>): void; body: unknown }) => {
      ctx.set(page.headers);
      ctx.body = page.html;
    };
  return [
    // The operator page signs in (POST /sessions) and calls the routes with its session.
    { method: "GET", path: "/", access: "public", handler: serve(pages.operator) },
    // A subscriber's portal: its credential stays in the link's fragment, which is never sent.
    { method: "GET", path: "/portal", access: "public", handler: serve(pages.portal) },
  ];
}
