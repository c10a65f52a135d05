import type { BenchCredentials } from "../bench-credentials.js";
import type { ScenarioContext } from "../scenario.js";

/** Why the durable sender cannot be measured yet, or `undefined` when it can. */
export async function outboxSenderUnavailable(): Promise<string | undefined> {
  try {
    const sender = (await import("@plant-store/sender")) as Record<string, unknown>;
    if (typeof sender.createWorker !== "function")
      return "@plant-store/sender does not export createWorker yet";
    const sqlite = (await import("@plant-store/sender/sqlite" as string)) as Record<string, unknown>;
    if (typeof sqlite.createSqliteOutbox !== "function")
      return "@plant-store/sender/sqlite does not export createSqliteOutbox yet";
  } catch (error) {
    return `@plant-store/sender not usable: ${(error as Error).message.split("\n")[0]}`;
  }
  return "the bench's outbox driver is not written yet";
}

export interface OutboxMeasurement {
  rate: number;
  cpuMicrosPerDelivery: number;
}

export async function measureOutboxSender(_input: {
  context: ScenarioContext;
  receiverUrl: string;
  credentials: BenchCredentials;
  count: number;
  concurrency: number;
}): Promise<OutboxMeasurement> {
  throw new Error("not available");
}
