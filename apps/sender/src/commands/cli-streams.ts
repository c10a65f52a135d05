import { AsyncLocalStorage } from "node:async_hooks";

/** Where a command's output goes: the process's own streams, or a caller's (`main`'s second argument). */
export interface CliStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

const current = new AsyncLocalStorage<CliStreams>();

/** Runs `work` with every line a command prints going to `streams`. */
export function withCliStreams<T>(streams: CliStreams, work: () => Promise<T>): Promise<T> {
  return current.run(streams, work);
}

/** The streams of the command running now: the process's outside `withCliStreams`. */
export function cliStreams(): CliStreams {
  return current.getStore() ?? { stdout: process.stdout, stderr: process.stderr };
}

/** One line on the command's stdout, as `console.log` prints a string. */
export function printLine(text: string): void {
  cliStreams().stdout.write(`${text}\n`);
}

/** One line on the command's stderr, as `console.error` prints a string. */
export function printErrorLine(text: string): void {
  cliStreams().stderr.write(`${text}\n`);
}
