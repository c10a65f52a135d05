export { type ApiAnswer, type CallOptions, callApi } from "./call-api.js";
export { endConnections } from "./end-connections.js";
export { getFreeFixedPort, getFreePort } from "./get-free-port.js";
export { launchChromium } from "./launch-chromium.js";
export { launchPersistentChromium } from "./launch-persistent-chromium.js";
export { parseHandledCount } from "./parse-handled-count.js";
export { openRaw, parseRawAnswer, type RawAnswer, type RawConnection, trickle } from "./raw-request.js";
export {
  type AppLogLine,
  AppStartError,
  type RunningApp,
  resolveAppCli,
  type SpawnAppOptions,
  spawnApp,
} from "./spawn-app.js";
export { type StartPostgresOptions, startPostgres, type TestPostgres } from "./start-postgres.js";
export {
  type ReceivedRequest,
  type Responder,
  startTestReceiver,
  type TestReceiver,
} from "./start-test-receiver.js";
export { type ThreeWebhooksEvents, threeWebhooksDocument } from "./three-webhooks-document.js";
export { waitFor } from "./wait-for.js";
