import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import Koa from "koa";
import { Counter, Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { createDeliveryLog, type DeliveryLog } from "../../src/create-delivery-log.js";

/** The log in front of a stand-in for the webhook route, which leaves the outcome the real one leaves. */
async function serve(log: DeliveryLog): Promise<{ url: string; server: Server }> {
  const app = new Koa();
  app.use(log.middleware);
  app.use((ctx) => {
    ctx.state.plantWebhook = { outcome: "received", webhookId: ctx.get("webhook-id") };
    ctx.body = { received: true, duplicate: false };
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("the delivery log's bounds", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it("keeps the newest maxEntries deliveries and forgets the least recently seen ids past maxTrackedIds", async () => {
    const requests = new Counter({
      name: "bounds_requests_total",
      help: "test",
      labelNames: ["outcome", "status"],
      registers: [new Registry()],
    });
    const log = createDeliveryLog({ requests, maxEntries: 3, maxTrackedIds: 2 });
    const started = await serve(log);
    server = started.server;
    const send = (id: string, attempt?: string) =>
      fetch(started.url, {
        method: "POST",
        headers: { "webhook-id": id, ...(attempt === undefined ? {} : { "webhook-attempt": attempt }) },
      });
    // Two ids kept: c forgets a, the second a forgets c (b was seen again since), so each starts over at 1.
    for (const id of ["msg_a", "msg_b", "msg_c", "msg_b", "msg_a"]) expect((await send(id)).status).toBe(200);
    // Out of range or not a number: the header is ignored, the receiver's own count is used.
    expect((await send("msg_c", "0")).status).toBe(200);
    expect((await send("msg_c", "12abc")).status).toBe(200);
    const { deliveries } = await log.snapshot();
    expect(deliveries.map((entry) => [entry.webhookId, entry.attempt, entry.attemptSource])).toEqual([
      ["msg_c", 2, "seen"],
      ["msg_c", 1, "seen"],
      ["msg_a", 1, "seen"],
    ]);
  });
});
