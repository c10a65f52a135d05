import type { Context } from "koa";
import { markHandled } from "./serve-over-ipc.js";

/**
 * The Koa baselines' one handler: read the body, `JSON.parse` it, answer 200, no checks at all. The
 * same code in `koa-raw` and `koa-router-raw`, so their difference is the router alone.
 */
export async function koaReadAndParse(ctx: Context): Promise<void> {
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
}
