import { createServer, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { ReceiverLogger } from "@plant-store/receiver";
import type Koa from "koa";

export interface HttpServerOptions {
  /** Longest time for a client to send its request head. */
  headersTimeoutMs: number;
  /** Longest time for a client to send its whole request (head and body). */
  requestTimeoutMs: number;
  logger: ReceiverLogger;
}

/**
 * The HTTP server around the Koa app, with timeouts that cut off clients trickling headers or bodies
 * (slowloris), and the spec's error body (instead of Node's empty one) for requests Node refuses
 * before Koa sees them: malformed, oversized heads, timeouts.
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
  return server;
}

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, logger: ReceiverLogger): void {
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
