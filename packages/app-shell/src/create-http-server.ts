import { createServer, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type Koa from "koa";
import { clientKey } from "./client-key.js";
import { createSampledWarning, type WarningLogger } from "./create-sampled-warning.js";

export interface HttpServerOptions {
  /** Longest time for a client to send its request head. */
  headersTimeoutMs: number;
  /** Longest time for a client to send its whole request (head and body). */
  requestTimeoutMs: number;
  /**
   * Open connections one client (an IPv4 address, an IPv6 /64) may hold; a connection beyond them is
   * closed as soon as it is accepted. Each open connection holds a file descriptor, which the process
   * also needs for its own outgoing connections and files. Default: no cap.
   */
  maxConnectionsPerClient?: number;
  logger: WarningLogger;
}

/**
 * The HTTP server around a Koa app, with timeouts that cut off clients trickling headers or bodies
 * (slowloris), an optional cap on connections per client, and the spec's error body (instead of Node's
 * empty one) for requests Node refuses before Koa sees them: malformed, oversized heads, timeouts.
 */
export function createHttpServer(app: Koa, options: HttpServerOptions): Server {
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      // Node only looks for expired requests on this interval (30 s by default), which would let a
      // slow client overstay a short timeout by that much.
      connectionsCheckingInterval: Math.max(
        10,
        Math.min(1000, Math.floor(Math.min(options.headersTimeoutMs, options.requestTimeoutMs) / 4)),
      ),
    },
    app.callback(),
  );
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket, options.logger),
  );
  const cap = options.maxConnectionsPerClient;
  if (cap !== undefined) capConnectionsPerClient(server, cap, options.logger);
  return server;
}

function capConnectionsPerClient(server: Server, cap: number, logger: WarningLogger): void {
  if (!Number.isInteger(cap) || cap < 1)
    throw new RangeError(`maxConnectionsPerClient must be a whole number of at least 1, got ${cap}`);
  const open = new Map<string, number>();
  const refused = createSampledWarning(logger, "connection refused: too many open from one client");
  server.on("close", () => refused.flush());
  server.on("connection", (socket: Socket) => {
    const client = clientKey(socket.remoteAddress);
    const count = (open.get(client) ?? 0) + 1;
    if (count > cap) {
      // Closed before a byte is read: the descriptor is back at once, and no answer costs anything.
      socket.destroy();
      refused.note({ client, open: cap });
      return;
    }
    open.set(client, count);
    socket.once("close", () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left > 0) open.set(client, left);
      else open.delete(client);
    });
  });
}

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, logger: WarningLogger): void {
  const code = error.code ?? "ERR_UNKNOWN";
  // Never log `error` itself: its `rawPacket` holds the client's bytes, tokens and signatures included.
  const started = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (code === "ECONNRESET" || code === "EPIPE" || !socket.writable || started?.headersSent) {
    socket.destroy();
    return;
  }
  const status = code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
  const message =
    status === 408
      ? "Request was not received in time"
      : status === 431
        ? "Request header fields too large"
        : "Malformed HTTP request";
  logger.warn({ status, code }, "http request refused");
  const body = JSON.stringify({ error: status, message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}
