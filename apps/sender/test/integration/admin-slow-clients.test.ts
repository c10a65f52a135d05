import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openRaw, startTestReceiver, type TestReceiver, trickle, waitFor } from "@plant-store/testing";
import { ErrorBodySchema } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StoreProcess, startStore } from "../fixtures/store-process.js";

const adminToken = "slow-clients-admin-token-5f2e";
const ADMIN = { PLANT_STORE_ADMIN_TOKEN: adminToken };
const dir = mkdtempSync(join(tmpdir(), "plant-store-slow-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function admin<T>(store: StoreProcess, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${store.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

describe("the store's admin port against a client trickling its request", () => {
  let store: StoreProcess;
  beforeAll(async () => {
    store = await startStore(
      ["--db", join(dir, "short.db"), "--headers-timeout", "300ms", "--request-timeout", "600ms"],
      ADMIN,
    );
  });
  afterAll(async () => {
    await store?.stop();
  });

  it("cuts off a client trickling its headers, and one trickling its body, with 408 and the Error body", async () => {
    const head = `GET /endpoints HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${adminToken}\r\n\r\n`;
    const slowHead = await openRaw(store.url);
    void trickle(slowHead.socket, Buffer.from(head), 50);
    const body = JSON.stringify({ name: "Slowly added" });
    const slowBody = await openRaw(store.url);
    slowBody.socket.write(
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${adminToken}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    void trickle(slowBody.socket, Buffer.from(body), 50);
    for (const answer of await Promise.all([slowHead.answer, slowBody.answer])) {
      expect(answer.status).toBe(408);
      expect(ErrorBodySchema.parse(JSON.parse(answer.body))).toMatchObject({ error: 408 });
    }
    expect((await admin<{ plants: unknown[] }>(store, "GET", "/plants")).plants).toEqual([]);
  });
});

// Low enough that 400 idle connections would use up every descriptor the process may have.
const MAX_OPEN_FILES = 200;

describe(`the store's admin port on a process limited to ${MAX_OPEN_FILES} open files`, () => {
  let store: StoreProcess;
  let receiver: TestReceiver;
  const held: Socket[] = [];
  beforeAll(async () => {
    receiver = await startTestReceiver();
    store = await startStore(["--db", join(dir, "limited.db"), "--allow-private-targets"], ADMIN, {
      maxOpenFiles: MAX_OPEN_FILES,
    });
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await store?.stop();
    await receiver?.close();
  });

  it("closes a client's connections beyond 64 at once, and keeps answering others and delivering", async () => {
    // 400 connections from one address (any of 127/8 is this host), each holding a request head
    // that never ends, as a client trickling a header line every few seconds does.
    let closed = 0;
    for (let index = 0; index < 400; index++) {
      const socket = connect({
        host: "127.0.0.1",
        port: Number(new URL(store.url).port),
        localAddress: "127.0.0.2",
      });
      socket.on("error", () => undefined);
      socket.once("close", () => {
        closed += 1;
      });
      socket.write("GET /endpoints HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n");
      held.push(socket);
    }
    await waitFor(() => (closed >= 400 - 64 ? true : undefined), 20_000);

    // Another client is answered, and deliveries go out (they need descriptors of their own).
    await admin(store, "POST", "/endpoints", {
      url: `${receiver.url}/plant/webhook`,
      token: "receiver-token",
    });
    for (const name of ["Crowded calathea", "Crowded cactus", "Crowded clivia"])
      await admin(store, "POST", "/plants", { name });
    await receiver.waitForRequests(3, 20_000);
    const delivered = async () =>
      (await admin<{ deliveries: unknown[] }>(store, "GET", "/deliveries?status=delivered")).deliveries
        .length;
    await waitFor(async () => ((await delivered()) === 3 ? true : undefined), 20_000);
    // Exactly the cap stayed open: the others were closed as soon as they were accepted.
    expect(closed).toBe(400 - 64);
    expect(store.output()).not.toContain("EMFILE");
    // Counted and sampled: the first refusal, then one line for the rest of its window at most.
    const refusals = store.lines.filter((line) => String(line.msg).startsWith("connection refused"));
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(refusals.length).toBeLessThanOrEqual(2);
    expect(refusals[0]).toMatchObject({ client: "127.0.0.2", open: 64 });
  }, 60_000);

  it("answers a request without the token 401 at once and closes its connection, its body still coming", async () => {
    const { socket, answer } = await openRaw(store.url);
    socket.write(
      "POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
    );
    void trickle(socket, Buffer.alloc(1000, " "), 200);
    // The connection ends long before the request timeout (30 s) could end it.
    const refused = await answer;
    expect(refused.status).toBe(401);
    expect(refused.headers.connection).toBe("close");
    expect(JSON.parse(refused.body)).toMatchObject({ error: 401 });
  }, 10_000);
});
