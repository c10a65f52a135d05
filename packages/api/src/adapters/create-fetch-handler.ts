import { EventEmitter } from "node:events";
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { Readable, Writable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { RequestListener } from "./create-node-handler.js";
import { setMountPoint, stripPrefix } from "./mount-prefix.js";

/** What the platform knows of the connection (Hono: `getConnInfo(c).remote.address`). */
export interface FetchConnectionInfo {
  /**
   * The client's address: failed credentials are throttled per client, "unknown" otherwise. Undefined is
   * taken as not known (what Hono's `getConnInfo(c).remote.address` may be).
   */
  remoteAddress?: string | undefined;
}

export type FetchHandler = (request: Request, connection?: FetchConnectionInfo) => Promise<Response>;

/**
 * The node-shaped response the API writes, turned into a streamed fetch `Response`: the status and
 * headers go out with the first write, each later write as it comes (so `listen`'s NDJSON stream is
 * not held until it ends), and a reader that cancels is, for the API, a connection that closed.
 */
class StreamedResponse extends Writable {
  statusCode = 200;
  statusMessage = "";
  readonly socket = null;
  readonly connection = null;
  readonly sendDate = false;
  private readonly fields = new Map<string, OutgoingHttpHeader>();
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private started = false;
  readonly response: Promise<Response>;
  private resolveResponse!: (response: Response) => void;

  constructor() {
    super();
    this.response = new Promise((resolve) => {
      this.resolveResponse = resolve;
    });
    this.once("finish", () => {
      this.start();
      this.controller?.close();
      this.controller = undefined;
    });
    // After `finish` (autoDestroy), or destroyed early: a failure before any answer is still answered.
    this.once("close", () => {
      if (!this.started) {
        this.started = true;
        this.resolveResponse(new Response(null, { status: 500 }));
        return;
      }
      try {
        this.controller?.close();
      } catch {
        // Already closed or cancelled.
      }
      this.controller = undefined;
    });
  }

  get headersSent(): boolean {
    return this.started;
  }
  get finished(): boolean {
    return this.writableEnded;
  }
  setHeader(name: string, value: OutgoingHttpHeader): this {
    this.fields.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string): OutgoingHttpHeader | undefined {
    return this.fields.get(name.toLowerCase());
  }
  getHeaders(): OutgoingHttpHeaders {
    return Object.fromEntries(this.fields);
  }
  getHeaderNames(): string[] {
    return [...this.fields.keys()];
  }
  hasHeader(name: string): boolean {
    return this.fields.has(name.toLowerCase());
  }
  removeHeader(name: string): void {
    this.fields.delete(name.toLowerCase());
  }
  writeHead(status: number, ...rest: unknown[]): this {
    this.statusCode = status;
    const headers = rest.find((item) => typeof item === "object" && item !== null) as
      | OutgoingHttpHeaders
      | undefined;
    for (const [name, value] of Object.entries(headers ?? {}))
      if (value !== undefined) this.setHeader(name, value);
    return this;
  }
  flushHeaders(): void {
    this.start();
  }

  /** Sends the status and headers: the Response resolves, its body streams what follows. */
  private start(): void {
    if (this.started) return;
    this.started = true;
    const headers = new Headers();
    for (const [name, value] of this.fields)
      for (const item of Array.isArray(value) ? value : [value]) headers.append(name, String(item));
    const empty = this.statusCode === 204 || this.statusCode === 304;
    const body = empty
      ? null
      : new ReadableStream<Uint8Array>({
          start: (controller) => {
            this.controller = controller;
          },
          cancel: () => {
            // The client went away: what a closed socket is to a node response.
            this.controller = undefined;
            this.destroy();
          },
        });
    this.resolveResponse(new Response(body, { status: this.statusCode, headers }));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.start();
    try {
      this.controller?.enqueue(new Uint8Array(chunk));
    } catch {
      // A stream the reader cancelled takes nothing more; the write is dropped, as on a closed socket.
    }
    callback();
  }
}

/**
 * The API as a fetch handler: the Request becomes a node-shaped request (its body a stream, its socket
 * the connection info given) and the answer a streamed Response. With `basePath`, a URL outside it is a 404.
 */
export function createFetchHandler(listener: RequestListener, basePath: string | undefined): FetchHandler {
  return async (request, connection = {}) => {
    const url = new URL(request.url);
    const path = stripPrefix(`${url.pathname}${url.search}`, basePath ?? "");
    if (path === undefined) return new Response(null, { status: 404 });
    const body = request.body
      ? Readable.fromWeb(request.body as unknown as WebReadableStream<Uint8Array>)
      : Readable.from([]);
    const socket = Object.assign(new EventEmitter(), {
      remoteAddress: connection.remoteAddress,
      encrypted: url.protocol === "https:",
      writable: true,
      setTimeout: () => socket,
    });
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const req = Object.assign(body, {
      method: request.method,
      url: path,
      headers,
      httpVersion: "1.1",
      httpVersionMajor: 1,
      httpVersionMinor: 1,
      socket,
      connection: socket,
    }) as unknown as IncomingMessage;
    setMountPoint(req, { prefix: basePath ?? "", origin: url.origin });
    const res = new StreamedResponse();
    res.on("error", () => undefined);
    // Koa's own boundary answers every error; a failure past it ends the stream (a 500 if nothing went out).
    listener(req, res as unknown as ServerResponse).catch(() => res.destroy());
    return res.response;
  };
}
