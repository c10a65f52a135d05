import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { stopOnSignals } from "./stop-on-signals.js";

function recordingLogger() {
  const lines: string[] = [];
  return {
    lines,
    info: (_: object, message: string) => lines.push(message),
    error: (_: object, message: string) => lines.push(`error: ${message}`),
  };
}

describe("stopOnSignals", () => {
  it("stops once on the first signal, then exits 0", async () => {
    const target = new EventEmitter();
    const logger = recordingLogger();
    let stops = 0;
    const exited = new Promise<number>((resolve) =>
      stopOnSignals({
        logger,
        target,
        exit: resolve,
        stop: async () => {
          stops += 1;
        },
      }),
    );
    target.emit("SIGTERM");
    target.emit("SIGINT");
    expect(await exited).toBe(0);
    expect(stops).toBe(1);
    expect(logger.lines).toEqual(["stopping", "stopped"]);
  });

  it("exits 1 when stopping fails", async () => {
    const target = new EventEmitter();
    const logger = recordingLogger();
    const exited = new Promise<number>((resolve) =>
      stopOnSignals({
        logger,
        target,
        exit: resolve,
        stop: () => Promise.reject(new Error("close failed")),
      }),
    );
    target.emit("SIGINT");
    expect(await exited).toBe(1);
    expect(logger.lines).toEqual(["stopping", "error: could not stop cleanly"]);
  });
});
