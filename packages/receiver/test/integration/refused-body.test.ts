import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { generateWebhookSecret, MAX_BODY_BYTES } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningReceiver, startReceiver } from "../fixtures/start-receiver.js";

const secret = generateWebhookSecret();
const token = "refusal-token";
const FIFTY_MIB = 50 * 1024 * 1024;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A keep-alive connection that resolves `answer` as soon as one whole response has arrived. */
async function open(
  url: string,
): Promise<{ socket: Socket; answer: Promise<Answer>; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await once(socket, "connect");
  // Writes into a closed connection fail; that is expected here and only ends the writing.
  socket.on("error", () => undefined);
  // Not events.once: it would reject on that error.
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const answer = new Promise<Answer>((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) return;
      const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers["content-length"] ?? 0);
      if (received.length < end + 4 + length) return;
      socket.off("data", onData);
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers,
        body: received.subarray(end + 4, end + 4 + length).toString("utf8"),
      });
    };
    socket.on("data", onData);
    void closed.then(() => reject(new Error("closed before a whole answer arrived")));
  });
  return { socket, answer, closed };
}

function head(url: string, method: string, headers: Record<string, string>): Buffer {
  const lines = [`${method} ${new URL(url).pathname} HTTP/1.1`, "Host: 127.0.0.1"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n`);
}

/** Writes `total` bytes, respecting backpressure, until done or the server closes the connection. */
async function pump(socket: Socket, total: number, closed: Promise<void>): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let written = 0;
  let gone = false;
  void closed.then(() => {
    gone = true;
  });
  while (written < total && !gone && socket.writable) {
    const size = Math.min(chunk.length, total - written);
    written += size;
    if (!socket.write(chunk.subarray(0, size))) {
      await new Promise<void>((resolve) => {
        socket.once("drain", resolve);
        void closed.then(resolve);
      });
    }
  }
  return written;
}

const refusals: [string, string, Record<string, string>, number][] = [
  ["a wrong token", "POST", { Authorization: "Bearer wrong", "Content-Type": "application/json" }, 401],
  ["no token", "POST", { "Content-Type": "application/json" }, 401],
  ["another method", "PUT", { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, 405],
  ["another content type", "POST", { Authorization: `Bearer ${token}`, "Content-Type": "text/plain" }, 415],
  [
    "a Content-Length over the limit",
    "POST",
    { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    413,
  ],
];

describe("a request refused before its body is read", () => {
  let receiver: RunningReceiver;
  let handled = 0;
  beforeAll(async () => {
    receiver = await startReceiver({
      tokens: [token],
      secrets: [secret],
      onNewPlant: () => {
        handled++;
      },
    });
  });
  afterAll(() => receiver.close());

  it.each(refusals)(
    "answers %s with Connection: close and closes the connection without waiting for the body",
    async (_what, method, headers, status) => {
      const { socket, answer, closed } = await open(receiver.url);
      socket.write(head(receiver.url, method, { ...headers, "Content-Length": String(FIFTY_MIB) }));
      socket.write(Buffer.alloc(1024, 0x20));
      const { status: answered, headers: answerHeaders, body } = await answer;
      expect(answered).toBe(status);
      expect(answerHeaders.connection).toBe("close");
      expect(JSON.parse(body)).toMatchObject({ error: status });
      // Closed by the server, though 50 MiB minus 1 KiB of the announced body never came.
      await closed;
      expect(handled).toBe(0);
    },
  );

  it("answers a chunked body refused by its token with Connection: close", async () => {
    const { socket, answer, closed } = await open(receiver.url);
    socket.write(
      head(receiver.url, "POST", {
        Authorization: "Bearer wrong",
        "Content-Type": "application/json",
        "Transfer-Encoding": "chunked",
      }),
    );
    socket.write("400\r\n");
    socket.write(Buffer.alloc(1024, 0x20));
    const { status, headers } = await answer;
    expect([status, headers.connection]).toEqual([401, "close"]);
    await closed;
  });

  it("stops reading a 50 MiB body sent with a wrong token instead of draining all of it", async () => {
    const { socket, answer, closed } = await open(receiver.url);
    socket.write(
      head(receiver.url, "POST", {
        Authorization: "Bearer wrong",
        "Content-Type": "application/json",
        "Content-Length": String(FIFTY_MIB),
      }),
    );
    // The answer may be lost to the reset that closing a connection with unread bytes causes; what
    // matters is that the server stops taking the body.
    answer.catch(() => undefined);
    const written = await pump(socket, FIFTY_MIB, closed);
    socket.destroy();
    expect(written).toBeLessThan(FIFTY_MIB);
  });

  it("keeps a bodiless refusal's connection open for the next request", async () => {
    const { socket, answer } = await open(receiver.url);
    socket.write(head(receiver.url, "GET", {}));
    const { status, headers } = await answer;
    expect(status).toBe(405);
    expect(headers.connection).toBe("keep-alive");
    socket.destroy();
  });
});

describe("the body size limit at its boundary", () => {
  let receiver: RunningReceiver;
  const handled: number[] = [];
  beforeAll(async () => {
    receiver = await startReceiver({
      tokens: [token],
      secrets: [secret],
      onNewPlant: (plant) => {
        handled.push(plant.id);
      },
    });
  });
  afterAll(() => receiver.close());

  /** A valid NewPlant padded with JSON whitespace to exactly `size` bytes. */
  function bodyOf(size: number, id: number): Buffer {
    const json = JSON.stringify({ id, name: "Boundary begonia" });
    return Buffer.concat([Buffer.from(json), Buffer.alloc(size - json.length, 0x20)]);
  }

  async function deliver(body: Buffer, framing: "length" | "chunked"): Promise<Answer> {
    const id = `msg_${crypto.randomUUID()}`;
    const at = new Date();
    const { socket, answer, closed } = await open(receiver.url);
    answer.catch(() => undefined);
    socket.write(
      head(receiver.url, "POST", {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": new Webhook(secret).sign(id, at, body.toString("utf8")),
        ...(framing === "length"
          ? { "Content-Length": String(body.length) }
          : { "Transfer-Encoding": "chunked" }),
      }),
    );
    if (framing === "length" && body.length > MAX_BODY_BYTES) {
      // Refused by the header alone: the body is not sent, so no unread bytes can reset the
      // connection before the answer is read.
    } else if (framing === "chunked") {
      // Several chunks, so the limit is crossed while streaming, not by one chunk's header.
      const size = 256 * 1024;
      for (let offset = 0; offset < body.length; offset += size) {
        const part = body.subarray(offset, offset + size);
        socket.write(`${part.length.toString(16)}\r\n`);
        socket.write(part);
        socket.write("\r\n");
      }
      socket.write("0\r\n\r\n");
    } else {
      socket.write(body);
    }
    try {
      return await answer;
    } finally {
      socket.destroy();
      await closed;
    }
  }

  it.each(["length", "chunked"] as const)(
    "accepts a body of exactly MAX_BODY_BYTES and refuses one byte more with 413 (%s)",
    async (framing) => {
      expect(MAX_BODY_BYTES).toBe(1_048_576);
      const accepted = await deliver(bodyOf(MAX_BODY_BYTES, 1), framing);
      expect([accepted.status, JSON.parse(accepted.body)]).toEqual([
        200,
        { received: true, duplicate: false },
      ]);
      const refused = await deliver(bodyOf(MAX_BODY_BYTES + 1, 2), framing);
      expect([refused.status, JSON.parse(refused.body)]).toEqual([
        413,
        { error: 413, message: `Request body is larger than ${MAX_BODY_BYTES} bytes` },
      ]);
      expect(handled).toEqual([1]);
      handled.length = 0;
    },
  );
});
