import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { ChildMessage, ParentMessage, ProcessStats } from "./server-kit/bench-message.js";

export class BenchProcessError extends Error {
  readonly code = "ERR_BENCH_PROCESS";
  override readonly name = "BenchProcessError";
}

export interface BenchProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` for servers; `undefined` for clients that do not listen. */
  url: string | undefined;
  /** The child's counters; `reset` also starts a new first/last handled window. */
  stats(reset?: boolean): Promise<ProcessStats>;
  command<T>(payload: unknown): Promise<T>;
  stop(): Promise<void>;
}

/** Path of a built bench entry point, e.g. `servers/raw-http` → `dist/servers/raw-http.js`. */
export function benchEntry(name: string): string {
  // Bundled, this module sits in dist/; run from source (the tests), it finds the build beside src/.
  const base = import.meta.url.includes("/src/") ? "../dist/" : "./";
  return fileURLToPath(new URL(`${base}${name}.js`, import.meta.url));
}

/**
 * Starts a bench server or client as its own process (so it never shares an event loop with the
 * load generator) and waits until it listens (`listening`) or is ready (`ready`).
 */
export async function spawnBenchProcess(
  name: string,
  options: { env?: Record<string, string>; execArgv?: string[]; timeoutMs?: number } = {},
): Promise<BenchProcess> {
  const child = fork(benchEntry(name), [], {
    env: { ...process.env, ...options.env },
    execArgv: options.execArgv ?? [],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  let nextId = 1;
  const pending = new Map<number, (message: ChildMessage) => void>();
  child.on("message", (message: ChildMessage) => {
    if ((message.type === "stats" || message.type === "reply") && pending.has(message.id)) {
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    }
  });
  const started = await new Promise<ChildMessage>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new BenchProcessError(`${name} did not start in time`));
    }, options.timeoutMs ?? 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new BenchProcessError(`${name} exited with code ${code} before it was ready`));
    });
    child.on("message", (message: ChildMessage) => {
      if (message.type === "listening" || message.type === "ready") {
        clearTimeout(timer);
        resolve(message);
      }
    });
  });
  const request = (message: ParentMessage) =>
    new Promise<ChildMessage>((resolve, reject) => {
      if (!child.connected) {
        reject(new BenchProcessError(`${name} is not running`));
        return;
      }
      pending.set(message.id, resolve);
      child.send(message);
    });
  return {
    child,
    url: started.type === "listening" ? `http://127.0.0.1:${started.port}` : undefined,
    async stats(reset = false) {
      const reply = await request({ type: "stats", id: nextId++, reset });
      if (reply.type !== "stats") throw new BenchProcessError("unexpected reply");
      return reply.stats;
    },
    async command<T>(payload: unknown) {
      const reply = await request({ type: "command", id: nextId++, payload });
      if (reply.type !== "reply") throw new BenchProcessError("unexpected reply");
      if (reply.error !== undefined) throw new BenchProcessError(`${name}: ${reply.error}`);
      return reply.payload as T;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.removeAllListeners("exit");
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
