import { resolveAppCli as resolveCli } from "@plant-store/testing";

export { type AppLogLine, AppStartError, type RunningApp, spawnApp } from "@plant-store/testing";

/** The built CLI of a workspace app (`plant-receiver` or `plant-store`), resolved from the demo. */
export function resolveAppCli(packageName: "plant-receiver" | "plant-store"): string {
  return resolveCli(packageName, import.meta.url);
}
