// Baseline: the floor for anything mounted with @koa/router. koa-raw's body read and JSON.parse as
// the one route of a router (`router.routes()` and `allowedMethods()`, as plant-receiver mounts
// its router): what the router's dispatch adds to Koa, so plant-receiver's own cost shows apart.
import { createServer } from "node:http";
import { Router } from "@koa/router";
import Koa from "koa";
import { koaReadAndParse } from "../server-kit/koa-read-and-parse.js";
import { serveOverIpc } from "../server-kit/serve-over-ipc.js";

const app = new Koa();
const router = new Router();
router.all("/plant/webhook", koaReadAndParse);
app.use(router.routes());
app.use(router.allowedMethods());
serveOverIpc(createServer(app.callback()));
