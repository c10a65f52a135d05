import { PassThrough } from "node:stream";
import type { ReceivedPlant } from "./plant-store.js";

/** Why `open()` gave no stream. */
export type StreamRefusal = "closed" | "too-many" | "too-many-for-client";

export type OpenedStream = { stream: PassThrough } | { refused: StreamRefusal };

/** Fans received plants out to every open server-sent-events stream. */
export interface PlantEvents {
  /**
   * A new SSE stream for a client at `client` (its address), dropped from the fan-out when it
   * closes. Refused once `close()` has been called (a stream opened during shutdown would hold the
   * server open), and beyond `maxStreams` in total or `maxStreamsPerClient` for one address.
   */
  open(client: string): OpenedStream;
  publish(plant: ReceivedPlant): void;
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
  /**
   * Open streams at most; each holds a connection, so a file descriptor. Default 100, well under a
   * usual `ulimit -n` of 1024, leaving room for the webhook's own connections.
   */
  maxStreams?: number;
  /** Open streams from one client address at most. Default 10 (a browser opens one per tab). */
  maxStreamsPerClient?: number;
  /**
   * Every stream is destroyed after this long; the page reconnects and reloads the list. A client
   * that reads nothing is invisible while the kernel's socket buffers absorb the heartbeats (megabytes
   * on loopback), so this is what bounds how long it holds its place. Default 300 000 ms (5 min).
   */
  maxAgeMs?: number;
}

/**
 * Streams are destroyed, not ended, when dropped: the consumer (the /events route) closes the
 * connection of a stream that closes without ending, and the browser reconnects and reloads. An
 * ended stream would wait for a reader that does not read to take its last bytes, and keep the
 * connection.
 */
export function createPlantEvents(options: PlantEventsOptions = {}): PlantEvents {
  const maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
  const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
  const maxStreams = options.maxStreams ?? 100;
  const maxStreamsPerClient = options.maxStreamsPerClient ?? 10;
  const maxAgeMs = options.maxAgeMs ?? 300_000;
  /** Each open stream, with its client's address and its end-of-life timer. */
  const streams = new Map<PassThrough, { client: string; expires: NodeJS.Timeout }>();
  const perClient = new Map<string, number>();
  /** Streams that have fallen behind, with the deadline for catching up. */
  const behind = new Map<PassThrough, NodeJS.Timeout>();
  let closed = false;

  /** Forgets a stream (idempotent: called on drop and again by its own close event). */
  const forget = (stream: PassThrough) => {
    clearTimeout(behind.get(stream));
    behind.delete(stream);
    const entry = streams.get(stream);
    if (entry === undefined) return;
    clearTimeout(entry.expires);
    streams.delete(stream);
    const left = (perClient.get(entry.client) ?? 1) - 1;
    if (left > 0) perClient.set(entry.client, left);
    else perClient.delete(entry.client);
  };
  const drop = (stream: PassThrough) => {
    forget(stream);
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
    for (const stream of streams.keys()) write(stream, ": keep-alive\n\n");
  }, options.heartbeatMs ?? 25_000);
  heartbeat.unref();
  return {
    open(client) {
      if (closed) return { refused: "closed" };
      if (streams.size >= maxStreams) return { refused: "too-many" };
      if ((perClient.get(client) ?? 0) >= maxStreamsPerClient) return { refused: "too-many-for-client" };
      const stream = new PassThrough();
      const expires = setTimeout(() => drop(stream), maxAgeMs);
      expires.unref();
      streams.set(stream, { client, expires });
      perClient.set(client, (perClient.get(client) ?? 0) + 1);
      stream.on("close", () => forget(stream));
      stream.write("retry: 2000\n: connected\n\n");
      return { stream };
    },
    publish(plant) {
      const frame = `event: plant\ndata: ${JSON.stringify(plant)}\n\n`;
      for (const stream of streams.keys()) write(stream, frame);
    },
    close() {
      closed = true;
      clearInterval(heartbeat);
      for (const timer of behind.values()) clearTimeout(timer);
      behind.clear();
      for (const [stream, { expires }] of streams) {
        clearTimeout(expires);
        stream.end();
      }
      streams.clear();
      perClient.clear();
    },
    get size() {
      return streams.size;
    },
  };
}
