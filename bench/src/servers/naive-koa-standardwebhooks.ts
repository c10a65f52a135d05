// Baseline: the naive stack plus signature verification with the `standardwebhooks` library.
import { createServer } from "node:http";
import { bodyParser } from "@koa/bodyparser";
import { Router } from "@koa/router";
import { NewPlantSchema } from "@plant-store/types";
import Koa from "koa";
import { Webhook } from "standardwebhooks";
import { credentialsFromEnv } from "../bench-credentials.js";
import { markHandled, serveOverIpc } from "../server-kit/serve-over-ipc.js";

const { token, secret } = credentialsFromEnv();
const webhook = new Webhook(secret);
const app = new Koa();
const router = new Router();
router.post("/plant/webhook", (ctx) => {
  if (ctx.get("authorization") !== `Bearer ${token}`) {
    ctx.status = 401;
    ctx.body = { error: 401, message: "Unauthorized" };
    return;
  }
  try {
    webhook.verify(ctx.request.rawBody, ctx.headers as Record<string, string>);
  } catch {
    ctx.status = 401;
    ctx.body = { error: 401, message: "Invalid signature" };
    return;
  }
  const parsed = NewPlantSchema.safeParse(ctx.request.body);
  if (!parsed.success) {
    ctx.status = 400;
    ctx.body = { error: 400, message: "Invalid plant" };
    return;
  }
  markHandled();
  ctx.body = { received: true };
});
app.use(bodyParser());
app.use(router.routes());
serveOverIpc(createServer(app.callback()));
