import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { readAppEvent } from "@plant-store/app-shell";
import { type RunningApp, resolveAppCli, spawnApp } from "@plant-store/testing";
import { Pool } from "undici";
import { createBenchCredentials } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { createPlantSigner } from "../create-plant-signer.js";
import { quantile } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import type { Scenario } from "../scenario.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "e2e.latency";
const now = () => performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ArrivalTimeoutError extends Error {
  readonly code = "ERR_ARRIVAL_TIMEOUT";
  override readonly name = "ArrivalTimeoutError";
}

export const e2eLatency: Scenario = {
  name: NAME,
  description:
    "Both apps as processes: latency from POST /plants returning to the receiver app reporting `plant.stored`, at one plant per 10 ms and under saturation; baseline: a bare signed POST round trip to the same receiver",
  async run(context) {
    const names = [
      "light.p50",
      "light.p99",
      "saturated.p50",
      "saturated.rate",
      "saturated.p99",
      "baseline.p50",
      "baseline.p99",
    ].map((suffix) => `${NAME}.${suffix}`);
    const credentials = createBenchCredentials();
    const adminToken = randomBytes(16).toString("hex");
    const dir = context.tempDir();
    const apps: RunningApp[] = [];
    const light = context.quick ? 100 : 500;
    const saturated = context.quick ? 300 : 2_000;
    try {
      let receiver: RunningApp;
      let store: RunningApp;
      let demo: typeof import("plant-store-demo");
      try {
        // Loaded here, so a broken demo package (its admin client) or an app that does not start skips
        // this scenario instead of the whole bench.
        demo = await import("plant-store-demo");
        receiver = await spawnApp("plant-receiver", resolveAppCli("plant-receiver", import.meta.url), [
          "--port",
          "0",
          "--token",
          credentials.token,
          "--secret",
          credentials.secret,
          "--db",
          join(dir, "receiver.db"),
        ]);
        apps.push(receiver);
        store = await spawnApp("plant-store", resolveAppCli("plant-store", import.meta.url), [
          "serve",
          "--port",
          "0",
          "--db",
          join(dir, "store.db"),
          "--admin-token",
          adminToken,
          "--allow-private-targets",
        ]);
        apps.push(store);
      } catch (error) {
        return skippedRows(names, `apps not startable: ${(error as Error).message.split("\n")[0]}`);
      }
      const arrivals = new Map<string, number>();
      const waiters = new Map<string, () => void>();
      receiver.onLine((line) => {
        const event = readAppEvent(line);
        if (event?.event !== "plant.stored") return;
        arrivals.set(event.name, now());
        waiters.get(event.name)?.();
      });
      const arrival = (name: string, timeoutMs = 30_000) =>
        new Promise<number>((resolve, reject) => {
          const seen = arrivals.get(name);
          if (seen !== undefined) {
            resolve(seen);
            return;
          }
          const timer = setTimeout(
            () => reject(new ArrivalTimeoutError(`${name} did not arrive`)),
            timeoutMs,
          );
          waiters.set(name, () => {
            clearTimeout(timer);
            waiters.delete(name);
            resolve(arrivals.get(name) as number);
          });
        });
      const admin = demo.createStoreAdminClient(store.url, adminToken);
      await admin.addEndpoint({
        url: `${receiver.url}/plant/webhook`,
        token: credentials.token,
        secret: credentials.secret,
      });
      const runId = randomBytes(4).toString("hex");
      let counter = 0;
      // Latency from the add returning; negative when the delivery overtook the admin API's answer.
      const addAndTime = async (): Promise<{ latency: Promise<number> }> => {
        counter += 1;
        const name = `e2e-${runId}-${counter}`;
        await admin.addPlant({ name, tag: "bench" });
        const returned = now();
        return { latency: arrival(name).then((at) => at - returned) };
      };

      context.log(`${NAME}: warm-up`);
      for (let i = 0; i < 20; i++) await (await addAndTime()).latency;

      context.log(`${NAME}: light load, ${light} plants, one per 10 ms`);
      const lightLatencies: Promise<number>[] = [];
      const start = now();
      for (let i = 0; i < light; i++) {
        const due = start + i * 10;
        if (due > now()) await sleep(due - now());
        lightLatencies.push((await addAndTime()).latency);
      }
      const lightValues = await Promise.all(lightLatencies);

      context.log(`${NAME}: saturation, ${saturated} plants from 20 concurrent clients`);
      const saturatedLatencies: Promise<number>[] = [];
      const saturatedStart = now();
      let issued = 0;
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (issued < saturated) {
            issued += 1;
            saturatedLatencies.push((await addAndTime()).latency);
          }
        }),
      );
      const saturatedValues = await Promise.all(saturatedLatencies);
      // Adds outpace deliveries, so the latency above is mostly queueing; this is the pipe's rate.
      const saturatedRate = saturated / ((Math.max(...arrivals.values()) - saturatedStart) / 1000);

      context.log(`${NAME}: baseline, ${light} bare signed POSTs, one per 10 ms`);
      const sign = createPlantSigner(credentials.secret, credentials.token);
      const pool = new Pool(receiver.url, { connections: 1 });
      const baselineValues: number[] = [];
      const baselineStart = now();
      for (let i = 0; i < light; i++) {
        const due = baselineStart + i * 10;
        if (due > now()) await sleep(due - now());
        const delivery = sign();
        const sent = now();
        const response = await pool.request({
          path: "/plant/webhook",
          method: "POST",
          body: delivery.body,
          headers: delivery.headers,
        });
        await response.body.dump();
        if (response.statusCode !== 200) throw new Error(`baseline POST answered ${response.statusCode}`);
        baselineValues.push(now() - sent);
      }
      await pool.close();

      const rows = (label: string, values: number[], baseline?: { p50: number; p99: number }) => {
        const p50 = quantile(values, 0.5);
        const p99 = quantile(values, 0.99);
        const early = values.filter((v) => v < 0).length;
        const notes = `${values.length} plants${early > 0 ? `, ${early} arrived before the add returned` : ""}`;
        return [
          ratioRow(
            `${NAME}.${label}.p50`,
            p50,
            "ms",
            baseline && { name: `${NAME}.baseline.p50`, value: baseline.p50 },
            label === "light" ? `${notes}; goal < 5 ms` : notes,
          ),
          ratioRow(
            `${NAME}.${label}.p99`,
            p99,
            "ms",
            baseline && { name: `${NAME}.baseline.p99`, value: baseline.p99 },
          ),
        ];
      };
      const base = { p50: quantile(baselineValues, 0.5), p99: quantile(baselineValues, 0.99) };
      const results: BenchResult[] = [
        ...rows("light", lightValues, base),
        ...rows("saturated", saturatedValues, base),
        ratioRow(
          `${NAME}.saturated.rate`,
          saturatedRate,
          "plants/s",
          undefined,
          "added by 20 clients to received, both apps end to end",
        ),
        ...rows("baseline", baselineValues),
      ];
      return results;
    } finally {
      await Promise.all(apps.map((app) => app.stop()));
    }
  },
};
