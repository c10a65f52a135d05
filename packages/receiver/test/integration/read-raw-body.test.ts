import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { openRaw, type RawConnection } from "@plant-store/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { BodyAlreadyConsumedError } from "../../src/errors/body-already-consumed-error.js";
import { InvalidJsonError } from "../../src/errors/invalid-json-error.js";
import { PayloadTooLargeError } from "../../src/errors/payload-too-large-error.js";
import { RequestAbortedError } from "../../src/errors/request-aborted-error.js";
import { RequestTimeoutError } from "../../src/errors/request-timeout-error.js";
import { type ReadRawBodyOptions, readRawBody } from "../../src/read-raw-body.js";

// readRawBody on real requests: a node:http server on 127.0.0.1 hands each request to the test,
// and the client is a raw TCP socket, so the bytes, their timing and the disconnects are the test's.

let server: Server;
let url: string;
const waiting: ((pair: { req: IncomingMessage; res: ServerResponse }) => void)[] = [];
const open: RawConnection[] = [];

beforeAll(async () => {
  server = createServer((req, res) => waiting.shift()?.({ req, res }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterEach(() => {
  for (const connection of open.splice(0)) connection.socket.destroy();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends a request head (and optionally the start of a body); resolves with the server's request. */
async function request(headers: string[], body = "") {
  const arrived = new Promise<{ req: IncomingMessage; res: ServerResponse }>((resolve) =>
    waiting.push(resolve),
  );
  const connection = await openRaw(url);
  open.push(connection);
  connection.socket.write(["POST / HTTP/1.1", "Host: 127.0.0.1", ...headers, "", body].join("\r\n"));
  const { req, res } = await arrived;
  return { req, res, socket: connection.socket };
}

/** A chunk of a chunked body. */
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

const options = (more: Partial<ReadRawBodyOptions> = {}): ReadRawBodyOptions => ({
  limit: 16,
  timeoutMs: 30_000,
  ...more,
});

/** The error a promise rejected with (fails the test if it resolved). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${String(value)}`);
    },
    (error: Error) => error,
  );
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

describe("readRawBody reads the exact bytes", () => {
  it("returns a body sent with its Content-Length, up to the limit exactly", async () => {
    const body = "0123456789abcdef";
    const { req } = await request([`Content-Length: ${body.length}`], body);
    const bytes = await readRawBody(req, options());
    expect(bytes.toString("latin1")).toBe(body);
  });

  it("takes a body that came with its headers at once, with no deadline, and the request still ends", async () => {
    const body = "0123456789";
    const arrived = new Promise<{ req: IncomingMessage; res: ServerResponse }>((resolve) =>
      waiting.push(resolve),
    );
    const connection = await openRaw(url);
    open.push(connection);
    // Head and body in one write, read in the same turn as the request event, as a handler does.
    connection.socket.write(
      `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const { req } = await arrived;
    const ended = new Promise<string[]>((resolve) => {
      const seen: string[] = [];
      req.once("end", () => seen.push("end"));
      req.once("close", () => resolve([...seen, "close"]));
    });
    // Taken from what is buffered: no listener for its data, and so no deadline to clear.
    const on = vi.spyOn(req, "on");
    const bytes = await readRawBody(req, options());
    expect(on).not.toHaveBeenCalled();
    expect(bytes.toString("latin1")).toBe(body);
    expect(await ended).toEqual(["end", "close"]);
  });

  it("returns an empty body as zero bytes", async () => {
    const { req } = await request(["Content-Length: 0"]);
    expect((await readRawBody(req, options())).length).toBe(0);
  });

  it("joins a chunked body that arrives in one, two and many pieces, in order", async () => {
    for (const pieces of [["ab"], ["ab", "cd"], ["ab", "cd", "ef", "\u00e9"]]) {
      const { req, socket } = await request(["Transfer-Encoding: chunked"]);
      const read = readRawBody(req, options());
      for (const piece of pieces) {
        socket.write(chunk(piece));
        await tick();
      }
      socket.write("0\r\n\r\n");
      expect((await read).toString("utf8")).toBe(pieces.join(""));
    }
  });

  it("clears its deadline once the body is read", async () => {
    const { req, socket } = await request(["Content-Length: 4"], "ok");
    const before = timers();
    const read = readRawBody(req, options({ timeoutMs: 60_000 }));
    // Half the body is in: after a look at what is buffered, it waits for the rest with a deadline.
    await tick();
    expect(timers()).toBe(before + 1);
    socket.write("!!");
    expect(await read).toEqual(Buffer.from("ok!!"));
    expect(timers()).toBe(before);
  });
});

describe("readRawBody refuses a body it cannot verify", () => {
  it("refuses a request whose body was already read, instead of waiting for bytes that are gone", async () => {
    const { req } = await request(["Content-Length: 2"], "{}");
    for await (const _ of req) {
      // A body parser reading the stream first.
    }
    expect(req.readable).toBe(false);
    expect(await rejection(readRawBody(req, options()))).toBeInstanceOf(BodyAlreadyConsumedError);
  });

  it("refuses a request whose stream was set to decode text: the signed bytes are no longer what it yields", async () => {
    const { req } = await request(["Content-Length: 2"], "{}");
    req.setEncoding("utf8");
    expect(req.readable).toBe(true);
    expect(await rejection(readRawBody(req, options()))).toBeInstanceOf(BodyAlreadyConsumedError);
  });

  it("refuses an announced Content-Length over the limit before reading anything", async () => {
    const { req } = await request(["Content-Length: 17"]);
    const error = await rejection(readRawBody(req, options()));
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    // Nothing was listened to: the announced size alone decided.
    expect(req.listenerCount("data")).toBe(0);
  });

  it("takes the Content-Length the caller already read over the header, and an empty one as none", async () => {
    const announced = await request(["Content-Length: 2"], "{}");
    expect(await rejection(readRawBody(announced.req, options({ contentLength: "4096" })))).toBeInstanceOf(
      PayloadTooLargeError,
    );
    const empty = await request(["Content-Length: 2"], "{}");
    expect(await readRawBody(empty.req, options({ contentLength: "" }))).toEqual(Buffer.from("{}"));
  });

  it("refuses a body whose length is not the Content-Length it was read for", async () => {
    const { req, socket } = await request(["Transfer-Encoding: chunked"]);
    const read = readRawBody(req, options({ contentLength: "5" }));
    socket.write(`${chunk("abc")}0\r\n\r\n`);
    const error = await rejection(read);
    expect(error).toBeInstanceOf(InvalidJsonError);
    expect((error.cause as Error).message).toBe("Body of 3 bytes, Content-Length 5");
  });

  it("stops at the first byte past the limit of a chunked body, and stops listening", async () => {
    const { req, socket } = await request(["Transfer-Encoding: chunked"]);
    const read = readRawBody(req, options());
    socket.write(chunk("0123456789abcdef"));
    await tick();
    socket.write(chunk("!"));
    expect(await rejection(read)).toBeInstanceOf(PayloadTooLargeError);
    for (const event of ["data", "end", "aborted", "close", "error"]) {
      expect(req.listenerCount(event), event).toBe(0);
    }
    expect(req.isPaused()).toBe(true);
  });

  it("clears its deadline when it refuses a body", async () => {
    const { req, socket } = await request(["Transfer-Encoding: chunked"]);
    const before = timers();
    const read = readRawBody(req, options({ timeoutMs: 60_000 }));
    expect(timers()).toBe(before + 1);
    socket.write(chunk("0123456789abcdefg"));
    expect(await rejection(read)).toBeInstanceOf(PayloadTooLargeError);
    expect(timers()).toBe(before);
  });

  it("answers a body that trickles past the deadline with RequestTimeoutError", async () => {
    const { req, socket } = await request(["Content-Length: 10"], "ab");
    const read = readRawBody(req, options({ timeoutMs: 100 }));
    socket.write("c");
    const error = await rejection(read);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(req.listenerCount("data")).toBe(0);
  });
});

describe("readRawBody when the client goes away", () => {
  it("answers a client that disconnects mid-body with RequestAbortedError", async () => {
    const { req, socket } = await request(["Content-Length: 10"], "ab");
    const read = readRawBody(req, options());
    await tick();
    socket.destroy();
    expect(await rejection(read)).toBeInstanceOf(RequestAbortedError);
  });

  it("fails on a request destroyed before it looked at the body, without waiting for its deadline", async () => {
    const { req } = await request(["Content-Length: 10"], "ab");
    const read = readRawBody(req, options());
    req.destroy();
    const error = await rejection(read);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error.cause as Error).message).toBe("request closed before its body was read");
  });

  // Node has reported a vanished client differently across versions: `aborted` alone, `close`
  // alone, or an `error` on the request. Each is emitted here on a real request, mid-body.
  it("fails on an `aborted` event", async () => {
    const { req } = await request(["Content-Length: 10"], "ab");
    const read = readRawBody(req, options());
    await tick();
    req.emit("aborted");
    const error = await rejection(read);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error.cause as Error).message).toBe("request aborted");
  });

  it("fails on a `close` that comes before the end of the body", async () => {
    const { req } = await request(["Content-Length: 10"], "ab");
    const read = readRawBody(req, options());
    await tick();
    req.emit("close");
    const error = await rejection(read);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error.cause as Error).message).toBe("connection closed before the body ended");
  });

  it("reports a reset or aborted connection as the client's, and any other stream error as it is", async () => {
    for (const code of ["ECONNRESET", "ECONNABORTED"]) {
      const { req } = await request(["Content-Length: 10"], "ab");
      const read = readRawBody(req, options());
      await tick();
      const reset = Object.assign(new Error("socket hang up"), { code });
      req.emit("error", reset);
      const error = await rejection(read);
      expect(error, code).toBeInstanceOf(RequestAbortedError);
      expect(error.cause, code).toBe(reset);
    }
    const { req } = await request(["Content-Length: 10"], "ab");
    const read = readRawBody(req, options());
    await tick();
    const other = Object.assign(new Error("decoder broke"), { code: "EOTHER" });
    req.emit("error", other);
    expect(await rejection(read)).toBe(other);
  });
});
