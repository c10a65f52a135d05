import type { CliStreams } from "../run-cli.js";

/** What every command is given: where to print, how to fail, and when to stop (`listen`). */
export interface CommandContext {
  streams: CliStreams;
  /** The exit code the command ends with when it does not throw. */
  setExitCode(code: number): void;
  /** Aborted when a long-running command (`listen`) must stop; absent, SIGINT or SIGTERM stops it. */
  signal?: AbortSignal | undefined;
}

/** Aborted by the first SIGINT or SIGTERM: Ctrl-C ends `listen` cleanly (its endpoint removed). */
export function stopSignal(context: CommandContext): AbortSignal {
  if (context.signal) return context.signal;
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return controller.signal;
}

/** One line, or the JSON answer as it came (indented: `jq` reads it, and so does a person). */
export function printer(context: CommandContext, json: boolean | undefined) {
  return {
    line: (text: string) => context.streams.out(`${text}\n`),
    answer: (body: unknown, text: () => string) =>
      context.streams.out(json ? `${JSON.stringify(body ?? {}, null, 2)}\n` : `${text()}\n`),
  };
}
