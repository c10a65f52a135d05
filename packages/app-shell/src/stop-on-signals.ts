import type { EventEmitter } from "node:events";

interface ShutdownLogger {
  info(object: object, message: string): void;
  error(object: object, message: string): void;
  flush?(): void;
}

export interface StopOnSignalsOptions {
  logger: ShutdownLogger;
  /** Stops the app: no new work, work in flight finished or given back, connections closed. */
  stop(): Promise<void>;
  /** Default: the process. */
  target?: Pick<EventEmitter, "on">;
  /** Default: `process.exit`. */
  exit?: (code: number) => void;
  signals?: readonly NodeJS.Signals[];
}

/**
 * Graceful shutdown on SIGTERM and SIGINT: the first signal stops the app and exits 0 (1 if stopping
 * failed); later ones are ignored, so a second Ctrl-C does not cut the first one's clean-up short.
 */
export function stopOnSignals(options: StopOnSignalsOptions): void {
  const { logger, stop } = options;
  const target = options.target ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    stop().then(
      () => {
        logger.info({}, "stopped");
        logger.flush?.();
        exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "could not stop cleanly");
        logger.flush?.();
        exit(1);
      },
    );
  };
  for (const signal of options.signals ?? ["SIGTERM", "SIGINT"]) target.on(signal, () => onSignal(signal));
}
