import { type ChildProcess, spawn } from "node:child_process";
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
  /** Every JSON log line so far, parsed. */
  lines: AppLogLine[];
  /** Every stdout line so far, as written (JSON or not). */
  rawLines: string[];
  /** stdout and stderr so far, as written. */
  output(): string;
  /** Calls `listener` for every later JSON log line. */
  onLine(listener: (line: AppLogLine) => void): void;
  /** The exit code once the process has exited and its pipes are drained (null after a signal). */
  exited: Promise<number | null>;
  /** `signal` (SIGTERM), then waits for the exit code (SIGKILL after `graceMs`, 10 s). */
  stop(graceMs?: number, signal?: NodeJS.Signals): Promise<number | null>;
  /** SIGKILL, and waits for the process to be gone. */
  kill(): Promise<void>;
}

export interface SpawnAppOptions {
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the `listening` line; default 30 s. */
  timeoutMs?: number;
  /** Node options before the script, e.g. `--expose-gc`. */
  nodeArgs?: readonly string[];
  /** An IPC channel to the child (`child.send`). */
  ipc?: boolean;
  /** Runs the app under this limit on open file descriptors (`ulimit -n`, soft and hard). */
  maxOpenFiles?: number;
}

export class AppStartError extends Error {
  readonly code = "ERR_APP_START";
  override readonly name = "AppStartError";
}

/**
 * The built CLI (`dist/cli.js`) of a workspace app, resolved from the caller's module (`import.meta.url`),
 * which must depend on it.
 */
export function resolveAppCli(packageName: string, from: string | URL): string {
  return join(dirname(createRequire(from).resolve(`${packageName}/package.json`)), "dist", "cli.js");
}

/**
 * Starts a Node script (an app's CLI) as its own process and waits for its `listening` log line, so
 * callers can pass `--port 0` and still learn the real port: no two runs ever collide on a port. The
 * one process spawner of the workspace: the demo, the apps' fixtures, e2e and the benchmarks use it.
 */
export async function spawnApp(
  name: string,
  script: string,
  args: readonly string[],
  options: SpawnAppOptions = {},
): Promise<RunningApp> {
  const command = [process.execPath, ...(options.nodeArgs ?? []), script, ...args];
  const [file, ...argv] =
    options.maxOpenFiles === undefined
      ? command
      : ["bash", "-c", `ulimit -n ${options.maxOpenFiles} && exec "$@"`, "bash", ...command];
  const child = spawn(file as string, argv, {
    stdio: options.ipc ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  const listeners: Array<(line: AppLogLine) => void> = [];
  const lines: AppLogLine[] = [];
  const rawLines: string[] = [];
  let raw = "";
  let stderr = "";
  // "close", not "exit": the last lines may still be in the pipe when the process has exited, and
  // callers read `lines` right after.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    raw += chunk;
    stderr += chunk;
  });
  const reader = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  reader.on("line", (text) => {
    raw += `${text}\n`;
    rawLines.push(text);
    let parsed: AppLogLine;
    try {
      parsed = JSON.parse(text) as AppLogLine;
    } catch {
      return;
    }
    if (parsed === null || typeof parsed !== "object") return;
    lines.push(parsed);
    for (const listener of listeners) listener(parsed);
  });

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new AppStartError(`${name} did not report listening in time. stderr:\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new AppStartError(`${name} exited with code ${code} before listening. output:\n${raw}`));
    });
    listeners.push((line) => {
      if (line.msg === "listening" && typeof line.url === "string") {
        clearTimeout(timer);
        resolve(line.url);
      }
    });
  });

  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    name,
    url,
    child,
    lines,
    rawLines,
    output: () => raw,
    onLine(listener) {
      listeners.push(listener);
    },
    exited,
    async stop(graceMs = 10_000, signal: NodeJS.Signals = "SIGTERM") {
      if (!gone()) child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      if (!gone()) child.kill("SIGKILL");
      await exited;
    },
  };
}
