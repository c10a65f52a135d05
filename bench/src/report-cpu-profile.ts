import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScenarioContext } from "./scenario.js";
import { summarizeCpuProfile } from "./summarize-cpu-profile.js";

/** `--cpu-prof` flags for a child process when `--profile` is on, else none. */
export function profileExecArgv(context: ScenarioContext): string[] {
  return context.profileDir === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", context.profileDir];
}

/**
 * Logs where a profiled child spent its time (its profile is written when it exits) and keeps
 * the summary beside the profile as `<label>.summary.txt`.
 */
export function reportCpuProfile(context: ScenarioContext, label: string, pid: number | undefined): void {
  const dir = context.profileDir;
  if (dir === undefined || pid === undefined) return;
  const file = readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile") && name.includes(`.${pid}.`))
    .sort()
    .pop();
  if (file === undefined) {
    context.log(`no CPU profile of ${label} (process ${pid}) in ${dir}`);
    return;
  }
  const summary = summarizeCpuProfile(join(dir, file));
  const lines = [
    `${label}: CPU profile ${join(dir, file)}`,
    "  self time by module:",
    ...summary.modules.map((m) => `    ${(m.share * 100).toFixed(1).padStart(5)}%  ${m.label}`),
    "  self time by function:",
    ...summary.functions.map((f) => `    ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.label}`),
  ];
  context.log(lines.join("\n"));
  writeFileSync(join(dir, `${label}.summary.txt`), `${lines.join("\n")}\n`);
}
