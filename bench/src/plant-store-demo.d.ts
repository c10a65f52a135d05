// plant-store-demo ships no declarations or `exports` yet (reported to the lead); these mirror
// apps/demo/src/spawn-app.ts and store-admin-client.ts, which the bench reuses as they are.
declare module "plant-store-demo/dist/index.js" {
  import type { ChildProcess } from "node:child_process";

  export interface AppLogLine {
    msg?: string;
    time?: number;
    [key: string]: unknown;
  }
  export interface RunningApp {
    name: string;
    url: string;
    child: ChildProcess;
    onLine(listener: (line: AppLogLine) => void): void;
    stop(graceMs?: number): Promise<number | null>;
  }
  export function resolveAppCli(packageName: "plant-receiver" | "plant-store"): string;
  export function spawnApp(
    name: string,
    cliPath: string,
    args: readonly string[],
    options?: { timeoutMs?: number; env?: NodeJS.ProcessEnv },
  ): Promise<RunningApp>;
  export interface StoreAdminClient {
    addEndpoint(input: { url: string; token: string; secret: string }): Promise<{ id: number | string }>;
    addPlant(input: { name: string; tag?: string }): Promise<{ id: number; name: string; tag?: string }>;
  }
  export function createStoreAdminClient(baseUrl: string, adminToken: string): StoreAdminClient;
}
