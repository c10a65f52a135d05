// The full receive path of @plant-store/receiver (bearer, signature, timestamp, zod, in-memory
// de-duplication) mounted in Koa, with a no-op handler.
import { createServer } from "node:http";
import { createPlantWebhookRouter } from "@plant-store/receiver";
import Koa from "koa";
import { credentialsFromEnv } from "../bench-credentials.js";
import { markHandled, serveOverIpc } from "../server-kit/serve-over-ipc.js";

const { token, secret } = credentialsFromEnv();
const app = new Koa();
const router = createPlantWebhookRouter({
  tokens: [token],
  secrets: [secret],
  onNewPlant() {
    markHandled();
  },
});
app.use(router.routes());
app.use(router.allowedMethods());
serveOverIpc(createServer(app.callback()));
