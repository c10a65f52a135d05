import { readFileSync } from "node:fs";

/** CPU time (user + system, µs) of another process, from /proc (Linux); NaN elsewhere. */
export function processCpuMicros(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name, which may itself contain spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    // USER_HZ is 100 on every mainstream Linux build.
    return ticks * 10_000;
  } catch {
    return Number.NaN;
  }
}

/** Peak resident set size (VmHWM, bytes) of another process since it started; NaN elsewhere. */
export function processPeakRss(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] === undefined ? Number.NaN : Number(match[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}
