import { checkVerificationResponse, generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliver } from "../fixtures/start-app.js";
import { type InProcessApp, startInProcess } from "../fixtures/start-in-process.js";

// The receiver app answers the store's verification request with no code of its own: its webhook
// middleware is @plant-store/receiver's, which answers it. Nothing is stored, and the live page
// and metrics tell it from a delivery.

const token = "tok_verification_8a2f";
const secret = generateWebhookSecret();
const CHALLENGE = "q3TjW9y0bX8c1n5Lr2V6pK4sH7dQeA0fZmGuIwYoN1E";
const body = JSON.stringify({ type: "webhook.verification", challenge: CHALLENGE });
const headers = { "webhook-event-type": "webhook.verification" };

describe("plant-receiver answers the verification handshake", () => {
  let app: InProcessApp;
  beforeAll(async () => {
    app = await startInProcess({ tokens: [token], secrets: [secret] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("answers the challenge with the response its secret makes, stores no plant, and shows the request as a verification", async () => {
    const id = `msg_${crypto.randomUUID()}`;
    const answered = await deliver(app.url, { token, secret, id, body, headers });
    expect(answered.status).toBe(200);
    const answer = (await answered.json()) as { challenge: string; response: string };
    expect(Object.keys(answer)).toEqual(["challenge", "response"]);
    expect(answer.challenge).toBe(CHALLENGE);
    const proves = (secrets: string[]) =>
      checkVerificationResponse({ secrets, webhookId: id, challenge: CHALLENGE, response: answer.response });
    expect([proves([secret]), proves([generateWebhookSecret()])]).toEqual([true, false]);
    const { plants } = (await (await app.read("/plants")).json()) as { plants: unknown[] };
    expect(plants).toEqual([]);
    const { deliveries } = (await (await app.read("/deliveries")).json()) as {
      deliveries: Array<{ webhookId: string; outcome: string }>;
    };
    expect(deliveries.map((entry) => [entry.webhookId, entry.outcome])).toEqual([[id, "verification"]]);
    const metrics = await (await app.read("/metrics")).text();
    expect(metrics).toMatch(/outcome="verification",status="200"} 1/);
  });

  it("answers a caller without the token 401, without the challenge", async () => {
    const refused = await deliver(app.url, { token: "tok_someone_else_0000", secret, body, headers });
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain(CHALLENGE);
  });
});
