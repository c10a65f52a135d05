import { PassThrough } from "node:stream";
import type { StoredPlant } from "./plant-store.js";

/** Fans received plants out to every open server-sent-events stream. */
export interface PlantEvents {
  /**
   * A new SSE stream, dropped from the fan-out when it closes; `undefined` once `close()` has been
   * called, so that a stream opened during shutdown cannot hold the server open.
   */
  open(): PassThrough | undefined;
  publish(plant: StoredPlant): void;
  /** Ends every stream, so a graceful shutdown is not held open by browsers. */
  close(): void;
  readonly size: number;
}

export interface PlantEventsOptions {
  /** Comment line sent to every stream this often. Default 25 000 ms. */
  heartbeatMs?: number;
  /**
   * A stream whose reader has fallen this many bytes behind is destroyed at once: every plant
   * waiting for a reader that does not read is memory held on its behalf. Default 1 MiB.
   */
  maxBufferedBytes?: number;
  /**
   * A stream that has fallen behind (a write returned false) and has not caught up within this time
   * is destroyed. Default 30 000 ms.
   */
  drainTimeoutMs?: number;
}

/**
 * Streams are destroyed, not ended, when dropped: the consumer (the /events route) closes the
 * connection of a stream that closes without ending, and the browser reconnects and reloads.
 */
export function createPlantEvents(options: PlantEventsOptions = {}): PlantEvents {
  const maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
  const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
  const streams = new Set<PassThrough>();
  /** Streams that have fallen behind, with the deadline for catching up. */
  const behind = new Map<PassThrough, NodeJS.Timeout>();
  let closed = false;

  const drop = (stream: PassThrough) => {
    clearTimeout(behind.get(stream));
    behind.delete(stream);
    streams.delete(stream);
    stream.destroy();
  };
  const write = (stream: PassThrough, text: string) => {
    if (stream.write(text)) return;
    if (stream.writableLength > maxBufferedBytes) {
      drop(stream);
      return;
    }
    if (behind.has(stream)) return;
    const timer = setTimeout(() => drop(stream), drainTimeoutMs);
    timer.unref();
    behind.set(stream, timer);
    stream.once("drain", () => {
      clearTimeout(timer);
      behind.delete(stream);
    });
  };

  // Proxies and browsers drop idle connections; a comment line every so often keeps them open.
  const heartbeat = setInterval(() => {
    for (const stream of streams) write(stream, ": keep-alive\n\n");
  }, options.heartbeatMs ?? 25_000);
  heartbeat.unref();
  return {
    open() {
      if (closed) return undefined;
      const stream = new PassThrough();
      streams.add(stream);
      stream.on("close", () => {
        clearTimeout(behind.get(stream));
        behind.delete(stream);
        streams.delete(stream);
      });
      stream.write("retry: 2000\n: connected\n\n");
      return stream;
    },
    publish(plant) {
      const frame = `event: plant\ndata: ${JSON.stringify(plant)}\n\n`;
      for (const stream of streams) write(stream, frame);
    },
    close() {
      closed = true;
      clearInterval(heartbeat);
      for (const timer of behind.values()) clearTimeout(timer);
      behind.clear();
      for (const stream of streams) stream.end();
      streams.clear();
    },
    get size() {
      return streams.size;
    },
  };
}
