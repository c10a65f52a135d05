// The full receive path of @plant-store/receiver (bearer, signature, timestamp, zod, in-memory
// de-duplication) as a plain Koa middleware (createPlantWebhookMiddleware), with a no-op handler.
import { createServer } from "node:http";
import { createMemoryDedupStore } from "@plant-store/receiver";
import { createPlantWebhookMiddleware } from "@plant-store/receiver/koa";
import Koa from "koa";
import { credentialsFromEnv } from "../bench-credentials.js";
import { markHandled, serveOverIpc } from "../server-kit/serve-over-ipc.js";

const { token, secret } = credentialsFromEnv();
const app = new Koa();
app.use(
  createPlantWebhookMiddleware({
    tokens: [token],
    secrets: [secret],
    // Room for every id of a full run, as in plant-receiver.
    dedupStore: createMemoryDedupStore({ maxEntries: 2_000_000 }),
    onNewPlant() {
      markHandled();
    },
  }),
);
serveOverIpc(createServer(app.callback()));
