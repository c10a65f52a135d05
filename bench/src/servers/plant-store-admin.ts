// The store's real admin app (`createAdminApp`: admin token check, JSON body reading, zod) on the
// store's real storage (`openStore` on BENCH_STORE, a SQLite file or a postgres:// URL, with one
// endpoint so each plant queues one delivery, and no worker running), or with storage replaced by
// nothing (BENCH_STORE=floor). Counts every 201 as handled.
import { createServer, type RequestListener } from "node:http";
import { credentialsFromEnv } from "../bench-credentials.js";
import { countPgStatements } from "../count-pg-statements.js";
import { createFloorPlantCatalog, type FloorPlantCatalog } from "../create-floor-plant-catalog.js";
import { createUntouchableOutbox } from "../create-untouchable-outbox.js";
import { markHandled, serveOverIpc } from "../server-kit/serve-over-ipc.js";
import { loadStoreApi, type StoreCount } from "../store-api.js";

const target = process.env.BENCH_STORE;
if (!target) throw new Error("BENCH_STORE must be a SQLite path, a postgres:// URL or floor");
const { token, secret } = credentialsFromEnv();
const api = await loadStoreApi();
// Client-side statement count (PostgreSQL only), read by the parent with the `statements` command.
const statements = target.startsWith("postgres") ? countPgStatements() : () => 0;

let count: () => Promise<StoreCount>;
let app: { callback(): RequestListener };
// The same metrics registry as `serve`'s: its default collectors run in every variant alike.
const { registry } = api.createMetrics();
if (target === "floor") {
  const plants: FloorPlantCatalog = createFloorPlantCatalog();
  app = api.createAdminApp({ outbox: createUntouchableOutbox(), plants, adminToken: token, registry });
  count = async () => ({ plants: plants.added, deliveries: 0 });
} else {
  const store = await api.openStore(target);
  // Never delivered (no worker runs): it makes each add queue a delivery, as in a store with a subscriber.
  await store.outbox.addEndpoint({ url: "http://127.0.0.1:9/plant/webhook", token, secrets: [secret] });
  app = api.createAdminApp({ outbox: store.outbox, plants: store.plants, adminToken: token, registry });
  count = async () => ({
    plants: (await store.plants.list(10_000_000)).length,
    deliveries: (await store.outbox.listDeliveries({ limit: 10_000_000 })).length,
  });
}

const handle = app.callback();
const server = createServer((req, res) => {
  res.once("finish", () => {
    if (res.statusCode === 201) markHandled();
  });
  handle(req, res);
});
serveOverIpc(server, async (payload) => {
  const type = (payload as { type?: unknown }).type;
  if (type === "count") return count();
  if (type === "statements") return statements();
  throw new Error("unknown command");
});
