import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliver, type RunningApp, startApp } from "../fixtures/start-app.js";

const token = "tok_stream_limits_5d1c";
const readToken = "read_stream_limits_88af";
const secret = generateWebhookSecret();
const dir = mkdtempSync(join(tmpdir(), "plant-receiver-streams-"));
// Low enough that the streams below, all kept open, would use up every descriptor the process may
// have (as 130 idle streams did with `ulimit -n 120`); high enough for the default caps to fit.
const MAX_OPEN_FILES = 160;

interface Opened {
  status: number;
  socket: Socket;
}

/** Opens `GET /events` from `localAddress` (any of 127/8 is this host) and reads the status line only. */
function openStream(url: string, localAddress: string): Promise<Opened> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port: Number(port), localAddress });
    socket.on("error", () => undefined);
    // Closed unanswered (0): what a process out of file descriptors does to every new connection.
    socket.once("close", () => resolve({ status: 0, socket }));
    socket.write(
      `GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${readToken}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    socket.once("data", (chunk: Buffer) => {
      // From here on the client reads nothing: an idle stream.
      socket.pause();
      socket.removeAllListeners("close");
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1]), socket });
    });
  });
}

describe(`GET /events on a receiver process limited to ${MAX_OPEN_FILES} open files`, () => {
  let app: RunningApp;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    app = await startApp(
      ["--token", token, "--secret", secret, "--read-token", readToken, "--db", join(dir, "receiver.db")],
      {},
      { maxOpenFiles: MAX_OPEN_FILES },
    );
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("caps idle streams per client address and in total (503 beyond), and still takes webhooks", async () => {
    const opened: { from: string; status: number }[] = [];
    // 11 from one address, then 10 from each of 16 more: 171 idle streams asked for, more than the
    // process has descriptors for.
    const from = [
      ...Array.from({ length: 11 }, () => "127.0.0.1"),
      ...Array.from({ length: 16 * 10 }, (_, i) => `127.0.1.${Math.floor(i / 10) + 1}`),
    ];
    for (const address of from) {
      const stream = await openStream(app.url, address);
      sockets.push(stream.socket);
      opened.push({ from: address, status: stream.status });
    }
    // A correctly signed webhook is still taken, with 100 idle streams held open.
    const response = await deliver(app.url, { token, secret });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true, duplicate: false });
    expect(app.child.exitCode).toBeNull();

    const statuses = (address: string) => opened.filter((o) => o.from === address).map((o) => o.status);
    // Per client address: the default 10, then 503.
    expect(statuses("127.0.0.1")).toEqual([...Array(10).fill(200), 503]);
    // In total: the default 100 streams (10 of them from 127.0.0.1 above), then 503 for everyone.
    expect(opened.filter((o) => o.status === 200)).toHaveLength(100);
    expect(opened.filter((o) => o.status !== 200 && o.status !== 503)).toEqual([]);
    const refused = app.lines.filter((line) => line.includes('"event stream refused"'));
    expect(refused.length).toBe(71);
  });
});
