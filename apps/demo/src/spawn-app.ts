import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";

/** One pino log line of an app, as parsed from its stdout. */
export interface AppLogLine {
  msg?: string;
  time?: number;
  [key: string]: unknown;
}

export interface RunningApp {
  name: string;
  /** The base URL the app reported in its `listening` log line. */
  url: string;
  child: ChildProcess;
  /** Calls `listener` for every later JSON log line. */
  onLine(listener: (line: AppLogLine) => void): void;
  /** SIGTERM, then waits for the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

export class AppStartError extends Error {
  readonly code = "ERR_APP_START";
  override readonly name = "AppStartError";
}

const require = createRequire(import.meta.url);

/** The built CLI of a workspace app (`plant-receiver` or `plant-store`). */
export function resolveAppCli(packageName: "plant-receiver" | "plant-store"): string {
  return join(dirname(require.resolve(`${packageName}/package.json`)), "dist", "cli.js");
}

/**
 * Starts an app as its own process and waits for the `listening` line, so callers can pass
 * `--port 0` and still learn the real port: no two runs ever collide on a port.
 */
export async function spawnApp(
  name: string,
  cliPath: string,
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<RunningApp> {
  const child = spawn(process.execPath, [cliPath, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  const listeners: Array<(line: AppLogLine) => void> = [];
  const stderr: string[] = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr.push(chunk);
    if (stderr.length > 50) stderr.shift();
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  lines.on("line", (text) => {
    let parsed: AppLogLine;
    try {
      parsed = JSON.parse(text) as AppLogLine;
    } catch {
      return;
    }
    for (const listener of listeners) listener(parsed);
  });

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new AppStartError(`${name} did not report listening in time. stderr:\n${stderr.join("")}`));
    }, options.timeoutMs ?? 20_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(
        new AppStartError(`${name} exited with code ${code} before listening. stderr:\n${stderr.join("")}`),
      );
    };
    child.once("exit", onExit);
    listeners.push((line) => {
      if (line.msg === "listening" && typeof line.url === "string") {
        clearTimeout(timer);
        child.off("exit", onExit);
        resolve(line.url);
      }
    });
  });

  return {
    name,
    url,
    child,
    onLine(listener) {
      listeners.push(listener);
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const [code] = (await exited) as [number | null];
      clearTimeout(timer);
      return code;
    },
  };
}
