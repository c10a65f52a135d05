import { openRaw, trickle } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ReceiverLogger } from "../../src/index.js";
import { type RunningReceiver, send, startReceiver } from "../fixtures/start-receiver.js";

const secret = generateWebhookSecret();
const token = "slow-token";

/** A complete, validly signed request head for `body`, without the body. */
function head(url: string, id: string, body: Buffer): Buffer {
  const at = new Date();
  const { pathname } = new URL(url);
  return Buffer.from(
    [
      `POST ${pathname} HTTP/1.1`,
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

describe("slow and vanishing clients", () => {
  let receiver: RunningReceiver;
  const handled: string[] = [];
  const logged: { level: string; fields: Record<string, unknown> }[] = [];
  const record =
    (level: string) =>
    (fields: object): void => {
      logged.push({ level, fields: fields as Record<string, unknown> });
    };
  const logger: ReceiverLogger = { info: record("info"), warn: record("warn"), error: record("error") };

  beforeAll(async () => {
    receiver = await startReceiver({
      tokens: [token],
      secrets: [secret],
      logger,
      bodyTimeoutMs: 300,
      onNewPlant: (_plant, delivery) => {
        handled.push(delivery.webhookId);
      },
    });
  });
  afterAll(() => receiver.close());

  it("answers 408 and closes the connection when the body trickles in slower than the body timeout", async () => {
    const body = Buffer.from(JSON.stringify({ id: 1, name: "Trickled tulip, sent one byte at a time" }));
    const { socket, answer } = await openRaw(receiver.url);
    socket.write(head(receiver.url, "msg_trickled", body));
    void trickle(socket, body, 40);
    const result = await answer;
    expect(result.status).toBe(408);
    expect(result.headers.connection).toBe("close");
    expect(JSON.parse(result.body)).toEqual({
      error: 408,
      message: "Request body was not received within 300 ms",
    });
    expect(handled).not.toContain("msg_trickled");
    expect(logged).toContainEqual({ level: "warn", fields: { status: 408, code: "ERR_REQUEST_TIMEOUT" } });
  });

  it("treats a client that disconnects mid-body as the client's fault, not a receiver failure", async () => {
    const body = Buffer.from(JSON.stringify({ id: 2, name: "Abandoned aloe" }));
    const { socket, answer } = await openRaw(receiver.url);
    socket.write(head(receiver.url, "msg_abandoned", body));
    socket.write(body.subarray(0, 5));
    await vi.waitFor(() => expect(receiver.inFlight()).toBe(1));
    socket.destroy();
    await answer;
    await vi.waitFor(() =>
      expect(logged).toContainEqual({ level: "warn", fields: { status: 400, code: "ERR_REQUEST_ABORTED" } }),
    );
    expect(logged.filter((entry) => entry.level === "error")).toEqual([]);
    expect(handled).not.toContain("msg_abandoned");
  });

  it("keeps answering signed deliveries while many slow clients hold connections", async () => {
    const slow = await Promise.all(Array.from({ length: 16 }, () => openRaw(receiver.url)));
    slow.forEach(({ socket }, i) => {
      const body = Buffer.from(JSON.stringify({ id: 100 + i, name: "Slow sloth plant" }));
      socket.write(head(receiver.url, `msg_slow_${i}`, body));
      void trickle(socket, body, 50);
    });
    const ids = Array.from({ length: 12 }, (_, i) => `msg_fast_${i}`);
    const responses = await Promise.all(ids.map((id) => send(receiver.url, { token, secret, id })));
    expect(responses.map((r) => r.status)).toEqual(ids.map(() => 200));
    expect(handled).toEqual(expect.arrayContaining(ids));
    const answers = await Promise.all(slow.map(({ answer }) => answer));
    expect(answers.map((a) => a.status)).toEqual(slow.map(() => 408));
    expect(handled.some((id) => id.startsWith("msg_slow_"))).toBe(false);
  });
});
