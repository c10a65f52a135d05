import { PassThrough } from "node:stream";
import type { StoredPlant } from "./plant-store.js";

/** Fans received plants out to every open server-sent-events stream. */
export interface PlantEvents {
  /** A new SSE stream; it is dropped from the fan-out when it closes. */
  open(): PassThrough;
  publish(plant: StoredPlant): void;
  /** Ends every stream, so a graceful shutdown is not held open by browsers. */
  close(): void;
  readonly size: number;
}

export function createPlantEvents(options: { heartbeatMs?: number } = {}): PlantEvents {
  const streams = new Set<PassThrough>();
  // Proxies and browsers drop idle connections; a comment line every so often keeps them open.
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(": keep-alive\n\n");
  }, options.heartbeatMs ?? 25_000);
  heartbeat.unref();
  return {
    open() {
      const stream = new PassThrough();
      streams.add(stream);
      stream.on("close", () => streams.delete(stream));
      stream.write("retry: 2000\n: connected\n\n");
      return stream;
    },
    publish(plant) {
      const frame = `event: plant\ndata: ${JSON.stringify(plant)}\n\n`;
      for (const stream of streams) stream.write(frame);
    },
    close() {
      clearInterval(heartbeat);
      for (const stream of streams) stream.end();
      streams.clear();
    },
    get size() {
      return streams.size;
    },
  };
}
