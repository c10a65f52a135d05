import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliver } from "../fixtures/start-app.js";
import { type InProcessApp, startInProcess } from "../fixtures/start-in-process.js";

const token = "tok_deliveries_5d1e";
const secret = generateWebhookSecret();

interface Snapshot {
  deliveries: Array<{
    webhookId: string;
    attempt: number;
    attemptSource: string;
    outcome: string;
    duplicate: boolean;
    status: number;
    handledMs: number;
    handledAt: string;
  }>;
  refused: Record<string, number>;
}

describe("GET /deliveries: the live page's per-delivery details and refused requests by code", () => {
  let app: InProcessApp;
  beforeAll(async () => {
    app = await startInProcess({ tokens: [token], secrets: [secret] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("lists each verified delivery newest first: attempt (header, else times seen), duplicate, status, time to answer", async () => {
    const id = `msg_${crypto.randomUUID()}`;
    const body = JSON.stringify({ id: 7, name: "Details daisy" });
    expect((await deliver(app.url, { token, secret, id, body })).status).toBe(200);
    expect((await deliver(app.url, { token, secret, id, body })).status).toBe(200);
    const other = `msg_${crypto.randomUUID()}`;
    const sent = await deliver(app.url, { token, secret, id: other, headers: { "webhook-attempt": "4" } });
    expect(sent.status).toBe(200);
    const snapshot = (await (await app.read("/deliveries")).json()) as Snapshot;
    expect(
      snapshot.deliveries.map((entry) => [
        entry.webhookId,
        entry.attempt,
        entry.attemptSource,
        entry.duplicate,
      ]),
    ).toEqual([
      [other, 4, "header", false],
      [id, 2, "seen", true],
      [id, 1, "seen", false],
    ]);
    for (const entry of snapshot.deliveries) {
      expect(entry.status).toBe(200);
      expect(entry.handledMs).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(Date.parse(entry.handledAt))).toBe(false);
    }
    expect(snapshot.refused).toEqual({});
  });

  it("counts refused requests by status code, and lists none of them (their webhook ids were never verified)", async () => {
    const wrongToken = await deliver(app.url, { token: "not-the-token", secret });
    expect(wrongToken.status).toBe(401);
    const unsigned = await fetch(`${app.url}/plant/webhook`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(unsigned.status).toBe(401);
    const badPayload = await deliver(app.url, { token, secret, body: JSON.stringify({ id: "one" }) });
    expect(badPayload.status).toBe(400);
    const tooBig = await deliver(app.url, {
      token,
      secret,
      body: JSON.stringify({ id: 1, name: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(tooBig.status).toBe(413);
    const snapshot = (await (await app.read("/deliveries")).json()) as Snapshot;
    expect(snapshot.refused).toEqual({ "400": 1, "401": 2, "413": 1 });
    // Refused before the delivery was verified: counted, but not listed (nothing vouches for its id).
    expect(snapshot.deliveries).toHaveLength(3);
    expect(snapshot.deliveries.every((entry) => entry.status === 200)).toBe(true);
    // The same figures as /metrics, which they are read from.
    const metrics = await (await app.read("/metrics")).text();
    expect(metrics).toMatch(/plant_receiver_webhook_requests_total\{outcome="rejected",status="401"\} 2/);
  });
});
