import { openRaw, type RawAnswer, trickle, waitFor } from "@plant-store/testing";
import { ErrorBodySchema, generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliver, type RunningApp, runCli, startApp } from "../fixtures/start-app.js";

const token = "slow-app-token";
const secret = generateWebhookSecret();

function requestHead(id: string, body: Buffer): Buffer {
  const at = new Date();
  return Buffer.from(
    [
      "POST /plant/webhook HTTP/1.1",
      "Host: 127.0.0.1",
      `Authorization: Bearer ${token}`,
      "Content-Type: application/json",
      `Content-Length: ${body.length}`,
      `webhook-id: ${id}`,
      `webhook-timestamp: ${Math.floor(at.getTime() / 1000)}`,
      `webhook-signature: ${new Webhook(secret).sign(id, at, body.toString())}`,
      "Connection: close",
      "",
      "",
    ].join("\r\n"),
  );
}

const plantBody = (i: number) => Buffer.from(JSON.stringify({ id: i, name: `Slow plant ${i}` }));

/** A client sending its request head one byte at a time. */
async function slowHeaders(app: RunningApp, i: number): Promise<RawAnswer> {
  const { socket, answer } = await openRaw(app.url);
  void trickle(socket, requestHead(`msg_slow_head_${i}`, plantBody(i)), 25);
  return answer;
}

/** A client sending its head at once, then its body one byte at a time. */
async function slowBody(app: RunningApp, i: number): Promise<RawAnswer> {
  const { socket, answer } = await openRaw(app.url);
  const body = plantBody(i);
  socket.write(requestHead(`msg_slow_body_${i}`, body));
  void trickle(socket, body, 25);
  return answer;
}

function expectTimeoutAnswer(answer: RawAnswer) {
  expect(answer.status).toBe(408);
  expect(ErrorBodySchema.parse(JSON.parse(answer.body))).toMatchObject({ error: 408 });
}

describe("plant-receiver against slow clients", () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp([
      "--token",
      token,
      "--secret",
      secret,
      "--db",
      ":memory:",
      "--headers-timeout",
      "300",
      "--body-timeout",
      "300",
      // Well past the trickles' 300 ms timeouts: with 600, a loaded machine (load 7, two test runs at
      // once) let Node's own request timeout race the app's body timeout, and one slow client's
      // connection was closed with no answer at all instead of the app's 408.
      "--request-timeout",
      "3000",
    ]);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("cuts off a client trickling its headers with 408 and the spec's error body", async () => {
    expectTimeoutAnswer(await slowHeaders(app, 1));
  });

  it("cuts off a client trickling its body with 408 and the spec's error body", async () => {
    expectTimeoutAnswer(await slowBody(app, 2));
  });

  it("keeps delivering signed webhooks while slow clients hold connections", async () => {
    const slow = [
      ...Array.from({ length: 10 }, (_, i) => slowHeaders(app, 100 + i)),
      ...Array.from({ length: 10 }, (_, i) => slowBody(app, 200 + i)),
    ];
    const ids = Array.from({ length: 10 }, (_, i) => `msg_meanwhile_${i}`);
    const responses = await Promise.all(ids.map((id) => deliver(app.url, { token, secret, id })));
    expect(responses.map((r) => r.status)).toEqual(ids.map(() => 200));
    for (const answer of await Promise.all(slow)) expectTimeoutAnswer(answer);

    const { plants } = (await (await app.read(`/plants?limit=1000`)).json()) as {
      plants: { webhookId: string }[];
    };
    const stored = plants.map((p) => p.webhookId);
    expect(stored).toEqual(expect.arrayContaining(ids));
    expect(stored.filter((id) => id.startsWith("msg_slow_"))).toEqual([]);
    expect(app.child.exitCode).toBeNull();
  });

  it("answers requests Node refuses before the app (malformed, oversized head) with the spec's error body", async () => {
    const cases: [string, number][] = [
      ["NOT A REQUEST\r\n\r\n", 400],
      ["POST /plant/webhook HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400],
      [`POST /plant/webhook HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431],
    ];
    for (const [bytes, status] of cases) {
      const { socket, answer } = await openRaw(app.url);
      socket.write(bytes);
      const result = await answer;
      expect(result.status).toBe(status);
      expect(ErrorBodySchema.parse(JSON.parse(result.body)).error).toBe(status);
    }
    // The refused heads carried no secrets here, but the log line must not carry the raw bytes at all.
    // The child's log reaches us through a pipe, possibly after its answers did.
    await waitFor(() => (app.output().includes('"msg":"http request refused"') ? true : undefined), 10_000);
    expect(app.output()).not.toContain("aaaaaaaaaa");
  });

  it("documents the timeouts in --help with their environment variables", async () => {
    const { code, stdout } = await runCli(["--help"]);
    expect(code).toBe(0);
    for (const [flag, env] of [
      ["--headers-timeout", "PLANT_RECEIVER_HEADERS_TIMEOUT_MS"],
      ["--body-timeout", "PLANT_RECEIVER_BODY_TIMEOUT_MS"],
      ["--request-timeout", "PLANT_RECEIVER_REQUEST_TIMEOUT_MS"],
      ["--db-busy-timeout", "PLANT_RECEIVER_DB_BUSY_TIMEOUT_MS"],
    ]) {
      expect(stdout).toContain(flag);
      expect(stdout).toContain(env);
    }
  });
});
