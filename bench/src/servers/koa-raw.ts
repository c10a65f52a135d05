// Baseline: the floor for anything mounted in Koa. Koa with one middleware that reads the body and
// `JSON.parse`s it, as raw-http does, and no checks at all: what Koa alone adds to node:http.
import { createServer } from "node:http";
import Koa from "koa";
import { markHandled, serveOverIpc } from "../server-kit/serve-over-ipc.js";

const app = new Koa();
app.use(async (ctx) => {
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
serveOverIpc(createServer(app.callback()));
