// The full receive path of @plant-store/receiver (bearer, signature, timestamp, zod, in-memory
// de-duplication) mounted in Koa, with a no-op handler.
import { createServer } from "node:http";
import { createMemoryDedupStore } from "@plant-store/receiver";
import { createPlantWebhookRouter } from "@plant-store/receiver/koa";
import Koa from "koa";
import { credentialsFromEnv } from "../bench-credentials.js";
import { markHandled, serveOverIpc } from "../server-kit/serve-over-ipc.js";

const { token, secret } = credentialsFromEnv();
const app = new Koa();
const router = createPlantWebhookRouter({
  tokens: [token],
  secrets: [secret],
  // Room for every id of a full run (about 30,000 new ids a second for 30 s): the default 100,000
  // keeps each id for 10 minutes and then refuses new ids (500) rather than forget one, which would
  // measure the refusals instead of the receive path. A high-volume user raises it the same way.
  dedupStore: createMemoryDedupStore({ maxEntries: 2_000_000 }),
  onNewPlant() {
    markHandled();
  },
});
app.use(router.routes());
app.use(router.allowedMethods());
serveOverIpc(createServer(app.callback()));
