import { PORTAL_PAGE_HEADERS, PORTAL_PAGE_HTML } from "../portal-page-html.js";
import { STORE_PAGE_HEADERS, STORE_PAGE_HTML } from "../store-page-html.js";
import type { RouteTable } from "./route-table.js";

/** The pages: static, holding no data; they sign in and call the API with what they were given. */
export function pageRoutes(): RouteTable {
  return [
    // The store page signs in (POST /sessions) and calls the routes with its session.
    {
      method: "GET",
      path: "/",
      access: "public",
      handler: (ctx) => {
        ctx.set(STORE_PAGE_HEADERS);
        ctx.body = STORE_PAGE_HTML;
      },
    },
    // A subscriber's portal: its credential stays in the link's fragment, which is never sent.
    {
      method: "GET",
      path: "/portal",
      access: "public",
      handler: (ctx) => {
        ctx.set(PORTAL_PAGE_HEADERS);
        ctx.body = PORTAL_PAGE_HTML;
      },
    },
  ];
}
