import type { Scenario } from "../scenario.js";
import { backlog } from "./backlog.js";
import { claimIdleEndpoints } from "./claim-idle-endpoints.js";
import { cliStart } from "./cli-start.js";
import { deliveryControl } from "./delivery-control.js";
import { e2eLatency } from "./e2e-latency.js";
import { endpointHealth } from "./endpoint-health.js";
import { fanout } from "./fanout.js";
import { postgresScale } from "./postgres-scale.js";
import { receiverThroughput } from "./receiver-throughput.js";
import { receiverVerify } from "./receiver-verify.js";
import { senderDrain } from "./sender-drain.js";
import { senderDrainOneProcess } from "./sender-drain-one-process.js";
import { senderFairness } from "./sender-fairness.js";
import { senderFilter } from "./sender-filter.js";
import { senderIngest } from "./sender-ingest.js";
import { senderThroughput } from "./sender-throughput.js";
import { storeEvents } from "./store-events.js";

/** Every scenario, in the order the issue lists them. */
export const scenarios: readonly Scenario[] = [
  receiverThroughput,
  receiverVerify,
  senderThroughput,
  e2eLatency,
  fanout,
  backlog,
  postgresScale,
  senderDrain,
  senderDrainOneProcess,
  senderIngest,
  deliveryControl,
  endpointHealth,
  cliStart,
  senderFairness,
  claimIdleEndpoints,
  storeEvents,
  senderFilter,
];
