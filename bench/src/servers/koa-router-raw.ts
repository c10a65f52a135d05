// Baseline: the floor for anything mounted with @koa/router. koa-raw's body read and JSON.parse as
// the one route of a router (`router.routes()` and `allowedMethods()`, as plant-receiver mounts
// its router): what the router's dispatch adds to Koa, so plant-receiver's own cost shows apart.
import { createServer } from "node:http";
import { Router } from "@koa/router";
import Koa from "koa";
import { markHandled, serveOverIpc } from "../server-kit/serve-over-ipc.js";

const app = new Koa();
const router = new Router();
router.all("/plant/webhook", async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  try {
    JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    ctx.status = 400;
    return;
  }
  markHandled();
  ctx.type = "application/json";
  ctx.body = '{"received":true}';
});
app.use(router.routes());
app.use(router.allowedMethods());
serveOverIpc(createServer(app.callback()));
