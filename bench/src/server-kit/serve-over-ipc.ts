import type { Server } from "node:http";
import { processPeakRss } from "../proc-stats.js";
import type { ChildMessage, ParentMessage, ProcessStats } from "./bench-message.js";

let handled = 0;
let peakRss = 0;
let firstHandledAt = 0;
let lastHandledAt = 0;

/** Counts one successfully handled request (or delivery), reported to the parent in `stats`. */
export function markHandled(count = 1): void {
  handled += count;
  lastHandledAt = performance.timeOrigin + performance.now();
  if (firstHandledAt === 0) firstHandledAt = lastHandledAt;
}

/** Forgets the first/last times, so the next batch is timed on its own. */
function resetTimes(): void {
  firstHandledAt = 0;
  lastHandledAt = 0;
}

function send(message: ChildMessage): void {
  process.send?.(message);
}

function stats(): ProcessStats {
  const cpu = process.cpuUsage();
  const rss = process.memoryUsage.rss();
  // The kernel's high-water mark is exact; the sampler is the fallback off Linux.
  const hwm = processPeakRss(process.pid);
  peakRss = Math.max(peakRss, rss, Number.isFinite(hwm) ? hwm : 0);
  return { cpuMicros: cpu.user + cpu.system, rss, peakRss, handled, firstHandledAt, lastHandledAt };
}

/**
 * The child half of the bench protocol: answers `stats` and optional commands over IPC and
 * exits when the parent goes away, so a crashed bench never leaves servers behind.
 */
export function answerOverIpc(onCommand?: (payload: unknown) => Promise<unknown>): void {
  if (process.send === undefined) throw new Error("bench processes must be started with an IPC channel");
  // Sampled RSS catches peaks between the parent's polls (the backlog scenario reports the peak).
  setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 50).unref();
  process.on("message", (message: ParentMessage) => {
    if (message.type === "stats") {
      send({ type: "stats", id: message.id, stats: stats() });
      if (message.reset === true) resetTimes();
    }
    if (message.type === "command") {
      const reply = onCommand?.(message.payload) ?? Promise.reject(new Error("no commands here"));
      reply.then(
        (payload) => send({ type: "reply", id: message.id, payload }),
        (error: unknown) =>
          send({
            type: "reply",
            id: message.id,
            payload: null,
            error: String((error as Error).message ?? error),
          }),
      );
    }
  });
  process.on("disconnect", () => process.exit(0));
  // An orderly exit on SIGTERM lets `--cpu-prof` write its profile (a signal death writes none).
  process.on("SIGTERM", () => process.exit(0));
}

/** Listens on 127.0.0.1 port 0 and tells the parent the port. */
export function serveOverIpc(server: Server, onCommand?: (payload: unknown) => Promise<unknown>): void {
  answerOverIpc(onCommand);
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("unexpected server address");
    send({ type: "listening", port: address.port });
  });
}
