import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessApp, startInProcess } from "../fixtures/start-in-process.js";

const token = "metrics-token";
const secret = generateWebhookSecret();

function post(url: string, token: string): Promise<Response> {
  const id = `msg_${crypto.randomUUID()}`;
  const at = new Date();
  const body = JSON.stringify({ id: 1, name: "Counted calathea" });
  return fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, at, body),
    },
    body,
  });
}

describe("webhook metrics", () => {
  let app: InProcessApp;
  beforeAll(async () => {
    app = await startInProcess({ tokens: [token], secrets: [secret] });
  });
  afterAll(() => app.close());

  it("count every request the webhook route answers, however its path is spelled, and nothing else", async () => {
    const paths = ["/plant/webhook", "/plant/webhook/", "/PLANT/WEBHOOK", "/Plant/Webhook/?x=1"];
    for (const path of paths) {
      expect((await post(`${app.url}${path}`, token)).status).toBe(200);
      expect((await post(`${app.url}${path}`, "wrong")).status).toBe(401);
      expect((await fetch(`${app.url}${path}`)).status).toBe(405);
    }
    // Not the webhook: not counted.
    expect((await fetch(`${app.url}/plant/webhooks`, { method: "POST" })).status).toBe(404);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);

    const metrics = await (await app.read(`/metrics`)).text();
    const count = (labels: string) =>
      Number(
        new RegExp(`^plant_receiver_webhook_requests_total\\{${labels}\\} (\\d+)$`, "m").exec(metrics)?.[1],
      );
    expect(count('outcome="received",status="200"')).toBe(4);
    expect(count('outcome="rejected",status="401"')).toBe(4);
    expect(count('outcome="rejected",status="405"')).toBe(4);
    expect(metrics).not.toMatch(/status="404"/);
    expect(metrics).toMatch(
      /^plant_receiver_webhook_request_duration_seconds_count\{outcome="received"\} 4$/m,
    );
    expect(metrics).toMatch(
      /^plant_receiver_webhook_request_duration_seconds_count\{outcome="rejected"\} 8$/m,
    );
  });
});
