import { generateWebhookSecret, type NewPlant } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryDedupStore } from "../../src/index.js";
import { type RunningReceiver, startReceiver } from "../fixtures/start-receiver.js";

const secret = generateWebhookSecret();
const signedAt = new Date("2026-06-01T12:00:00Z");

interface Captured {
  headers: Record<string, string>;
  body: string;
}

/** One valid delivery exactly as it crossed the wire, to be sent again byte for byte. */
function capture(id: string, plant: NewPlant): Captured {
  const body = JSON.stringify(plant);
  return {
    body,
    headers: {
      authorization: "Bearer replay-token",
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(signedAt.getTime() / 1000),
      "webhook-signature": new Webhook(secret).sign(id, signedAt, body),
    },
  };
}

const replay = (url: string, captured: Captured) =>
  fetch(url, { method: "POST", headers: captured.headers, body: captured.body });

describe("replaying a captured delivery", () => {
  let receiver: RunningReceiver;
  // The receiver's clock, moved by the tests: replays happen "later" without waiting.
  let now = signedAt;
  const handled: string[] = [];
  beforeAll(async () => {
    receiver = await startReceiver({
      tokens: ["replay-token"],
      secrets: [secret],
      now: () => now,
      onNewPlant: (_plant, delivery) => {
        handled.push(delivery.webhookId);
      },
    });
  });
  afterAll(() => receiver.close());

  it("acknowledges a replay within the tolerance as a duplicate without a second handler call", async () => {
    const captured = capture("msg_replay_within", { id: 1, name: "Replayed rose" });
    now = signedAt;
    expect(await (await replay(receiver.url, captured)).json()).toEqual({ received: true, duplicate: false });
    for (const later of [1_000, 120_000, 300_000]) {
      now = new Date(signedAt.getTime() + later);
      const again = await replay(receiver.url, captured);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ received: true, duplicate: true });
    }
    expect(handled.filter((id) => id === "msg_replay_within")).toHaveLength(1);
  });

  it("refuses a replay once the timestamp is outside the tolerance, in either direction", async () => {
    const captured = capture("msg_replay_late", { id: 2, name: "Late lily" });
    now = new Date(signedAt.getTime() + 301_000);
    const late = await replay(receiver.url, captured);
    expect(late.status).toBe(401);
    expect(await late.json()).toEqual({
      error: 401,
      message: "Webhook timestamp is too old (tolerance 300 seconds)",
    });
    // A clock running behind sees the same capture as coming from the future.
    now = new Date(signedAt.getTime() - 301_000);
    const early = await replay(receiver.url, captured);
    expect(early.status).toBe(401);
    expect(await early.json()).toEqual({
      error: 401,
      message: "Webhook timestamp is too new (tolerance 300 seconds)",
    });
    expect(handled).not.toContain("msg_replay_late");
  });

  it("refuses a replay whose id or timestamp was changed to slip past de-duplication or the window", async () => {
    const captured = capture("msg_replay_edit", { id: 3, name: "Edited ivy" });
    now = signedAt;
    expect((await replay(receiver.url, captured)).status).toBe(200);
    now = new Date(signedAt.getTime() + 3_600_000);
    const edits = [
      { ...captured.headers, "webhook-id": "msg_replay_edit_2" },
      { ...captured.headers, "webhook-timestamp": String(now.getTime() / 1000) },
    ];
    for (const headers of edits) {
      const response = await fetch(receiver.url, { method: "POST", headers, body: captured.body });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: 401, message: "No matching webhook signature" });
    }
    expect(handled.filter((id) => id.startsWith("msg_replay_edit"))).toEqual(["msg_replay_edit"]);
  });
});

describe("replay after the de-duplication store forgot the id", () => {
  it("is still refused by the timestamp, because the store remembers ids longer than the tolerance", async () => {
    let now = signedAt;
    let calls = 0;
    const receiver = await startReceiver({
      tokens: ["replay-token"],
      secrets: [secret],
      now: () => now,
      // A store that forgets after 10 minutes, far shorter than the default 72 h.
      dedupStore: createMemoryDedupStore({ ttlMs: 600_000, now: () => now.getTime() }),
      onNewPlant: () => {
        calls++;
      },
    });
    try {
      const captured = capture("msg_forgotten", { id: 4, name: "Forgotten fern" });
      expect((await replay(receiver.url, captured)).status).toBe(200);
      now = new Date(signedAt.getTime() + 601_000);
      expect((await replay(receiver.url, captured)).status).toBe(401);
      expect(calls).toBe(1);
    } finally {
      await receiver.close();
    }
  });
});
