// Baseline: the floor for anything mounted in Koa. Koa with one middleware that reads the body and
// `JSON.parse`s it, as raw-http does, and no checks at all: what Koa alone adds to node:http.
import { createServer } from "node:http";
import Koa from "koa";
import { koaReadAndParse } from "../server-kit/koa-read-and-parse.js";
import { serveOverIpc } from "../server-kit/serve-over-ipc.js";

const app = new Koa();
app.use(koaReadAndParse);
serveOverIpc(createServer(app.callback()));
