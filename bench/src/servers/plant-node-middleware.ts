// The receiver library's createNodeMiddleware() as the whole request listener of a bare node:http
// server: the full receive path (bearer, signature, timestamp, zod, in-memory dedup, handler) without Koa.
import { createServer } from "node:http";
import { createMemoryDedupStore, createNodeMiddleware } from "@plant-store/receiver";
import { credentialsFromEnv } from "../bench-credentials.js";
import { markHandled, serveOverIpc } from "../server-kit/serve-over-ipc.js";

const { token, secret } = credentialsFromEnv();
const middleware = createNodeMiddleware({
  tokens: [token],
  secrets: [secret],
  // Room for every id of a whole run, as in the Koa server.
  dedupStore: createMemoryDedupStore({ maxEntries: 2_000_000 }),
  onNewPlant: () => {
    markHandled();
  },
});
serveOverIpc(createServer(middleware));
