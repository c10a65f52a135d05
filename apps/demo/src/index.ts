export {
  type AttemptSeen,
  createDeliveryLedger,
  type DeliveryLedger,
  type ExactlyOnceVerdict,
  type LedgerEntry,
} from "./create-delivery-ledger.js";
export { DEMO_PLANTS } from "./demo-plants.js";
export {
  DemoInterruptedError,
  type DemoOptions,
  type DemoPlant,
  type DemoSummary,
  DemoTimeoutError,
  runDemo,
} from "./run-demo.js";
export { type AppLogLine, AppStartError, type RunningApp, resolveAppCli, spawnApp } from "./spawn-app.js";
export { createStoreAdminClient, type StoreAdminClient, StoreAdminError } from "./store-admin-client.js";
