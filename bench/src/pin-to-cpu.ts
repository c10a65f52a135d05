import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";

/**
 * Binds a process (every thread of it) to one CPU with util-linux `taskset`, and answers the CPU
 * list it was allowed before, to give back with `restoreCpus`. On a small machine a server and its
 * load generator otherwise trade cores from one round to the next, and the server's CPU time per
 * request moves by a fifth with them. `undefined` (nothing changed) without `taskset`, off Linux,
 * or with fewer than two CPUs.
 */
export function pinToCpu(pid: number, cpu: number): string | undefined {
  if (process.platform !== "linux" || availableParallelism() < 2) return undefined;
  try {
    const before = execFileSync("taskset", ["-c", "-p", String(pid)], { encoding: "utf8" });
    execFileSync("taskset", ["-a", "-c", "-p", String(cpu), String(pid)], { stdio: "ignore" });
    // "pid 123's current affinity list: 0,1"
    return before.trim().split(": ").pop();
  } catch {
    return undefined;
  }
}

/** Gives a process back the CPUs `pinToCpu` answered. */
export function restoreCpus(pid: number, cpus: string | undefined): void {
  if (cpus === undefined) return;
  try {
    execFileSync("taskset", ["-a", "-c", "-p", cpus, String(pid)], { stdio: "ignore" });
  } catch {
    // The process has gone.
  }
}
