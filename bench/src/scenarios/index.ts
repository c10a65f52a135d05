import type { Scenario } from "../scenario.js";
import { receiverThroughput } from "./receiver-throughput.js";
import { senderThroughput } from "./sender-throughput.js";

/** Every scenario, in the order the issue lists them. */
export const scenarios: readonly Scenario[] = [receiverThroughput, senderThroughput];
