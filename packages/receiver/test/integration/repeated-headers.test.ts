import { openRaw } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningReceiver, startReceiver } from "../fixtures/start-receiver.js";

const secret = generateWebhookSecret();
const token = "repeat-token";

describe("repeated security headers", () => {
  let receiver: RunningReceiver;
  const handled: string[] = [];
  beforeAll(async () => {
    receiver = await startReceiver({
      tokens: [token],
      secrets: [secret],
      onNewPlant: (_plant, delivery) => {
        handled.push(delivery.webhookId);
      },
    });
  });
  afterAll(() => receiver.close());

  /** A validly signed delivery with `extra` header lines added, sent as raw bytes. */
  async function sendWith(id: string, extra: string[]) {
    const body = JSON.stringify({ id: 1, name: "Twice-told tale" });
    const at = new Date();
    const lines = [
      "POST /plant/webhook HTTP/1.1",
      "Host: 127.0.0.1",
      `Authorization: Bearer ${token}`,
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(body)}`,
      `webhook-id: ${id}`,
      `webhook-timestamp: ${Math.floor(at.getTime() / 1000)}`,
      `webhook-signature: ${new Webhook(secret).sign(id, at, body)}`,
      ...extra,
      "Connection: close",
    ];
    const { socket, answer } = await openRaw(receiver.url);
    socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
    return answer;
  }

  it("accepts the delivery as sent", async () => {
    expect((await sendWith("msg_once", [])).status).toBe(200);
  });

  // Node would join a repeated webhook-signature into "v1,<good>, <junk>" and keep only the first
  // Authorization; both are refused as ambiguous instead of passing on the first copy.
  it.each([
    ["webhook-signature", "webhook-signature: v1,AAAA", "Malformed webhook-signature header"],
    ["webhook-signature (empty copy)", "webhook-signature: ", "Malformed webhook-signature header"],
    ["Authorization", "Authorization: Bearer other", "Missing or invalid bearer token"],
  ])("refuses a repeated %s header with 401", async (_name, line, message) => {
    const id = `msg_repeat_${crypto.randomUUID()}`;
    const answer = await sendWith(id, [line]);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ error: 401, message });
    expect(handled).not.toContain(id);
  });
});
