import { describe, expect, it } from "vitest";
import { createDeliveryLedger } from "./create-delivery-ledger.js";

const attempt = (messageId: number, webhookId: string, outcome: string, attempt = 1) => ({
  event: "delivery.attempted",
  deliveryId: messageId,
  messageId,
  endpointId: 1,
  webhookId,
  attempt,
  status: outcome === "delivered" ? 200 : 500,
  error: null,
  durationMs: 3.2,
  outcome,
  queuedAt: "2026-01-01T00:00:00.000Z",
});
const stored = (plantId: number, webhookId: string) => ({
  event: "plant.stored",
  plantId,
  webhookId,
  name: `Plant ${plantId}`,
  time: 1_000,
});
const handled = (webhookId: string, duplicate = false) => ({
  event: "webhook.handled",
  outcome: duplicate ? "duplicate" : "received",
  status: 200,
  webhookId,
});

/** The lines of one clean delivery of plant `id`, in the order the pipes usually bring them. */
function deliverCleanly(ledger: ReturnType<typeof createDeliveryLedger>, id: number) {
  ledger.receiverLine(stored(id, `msg_${id}`));
  ledger.receiverLine(handled(`msg_${id}`));
  ledger.storeLine(attempt(id, `msg_${id}`, "delivered"));
}

describe("createDeliveryLedger", () => {
  it("judges plants whose handler ran once and that were stored once as arrived exactly once", () => {
    const ledger = createDeliveryLedger();
    for (const id of [1, 2, 3]) deliverCleanly(ledger, id);
    expect(ledger.verdict(3)).toStrictEqual({ arrived: 3, duplicates: 0, ok: true });
  });

  it("fails when the handler ran twice for one webhook id, although the receiver stored it once", () => {
    const ledger = createDeliveryLedger();
    for (const id of [1, 2]) deliverCleanly(ledger, id);
    // A second handler call for msg_2: the receiver app's UNIQUE(webhook_id) keeps it at one row.
    ledger.receiverLine(handled("msg_2"));
    expect(ledger.handlerCalls("msg_2")).toBe(2);
    expect(ledger.plants.get("msg_2")?.stored).toBe(1);
    expect(ledger.verdict()).toStrictEqual({ arrived: 1, duplicates: 1, ok: false });
  });

  it("counts a webhook id handled twice even when no plant of this run carries it", () => {
    const ledger = createDeliveryLedger();
    deliverCleanly(ledger, 1);
    ledger.receiverLine(handled("msg_elsewhere"));
    ledger.receiverLine(handled("msg_elsewhere"));
    expect(ledger.verdict()).toMatchObject({ duplicates: 1, ok: false });
  });

  it("does not count answers to duplicates as handler calls", () => {
    const ledger = createDeliveryLedger();
    deliverCleanly(ledger, 1);
    ledger.receiverLine(handled("msg_1", true));
    expect(ledger.verdict(1)).toStrictEqual({ arrived: 1, duplicates: 0, ok: true });
  });

  it("fails when the receiver's metrics counted more handler calls than plants", () => {
    const ledger = createDeliveryLedger();
    for (const id of [1, 2]) deliverCleanly(ledger, id);
    expect(ledger.verdict(3)).toMatchObject({ arrived: 2, duplicates: 0, ok: false });
  });

  it("fails when a plant was stored twice", () => {
    const ledger = createDeliveryLedger();
    deliverCleanly(ledger, 1);
    ledger.receiverLine(stored(1, "msg_1"));
    expect(ledger.verdict(1)).toMatchObject({ arrived: 0, ok: false });
  });

  it("is complete for a plant only once the store logged it delivered and the receiver ran the handler", () => {
    const ledger = createDeliveryLedger();
    const plant = ledger.plant("msg_7", 7);
    ledger.storeLine(attempt(7, "msg_7", "retrying", 1));
    ledger.receiverLine(stored(7, "msg_7"));
    expect(ledger.isComplete(plant)).toBe(false);
    ledger.receiverLine(handled("msg_7"));
    // The receiver has spoken, the store's "delivered" line has not crossed its pipe yet.
    expect(ledger.isComplete(plant)).toBe(false);
    expect(ledger.storeLine(attempt(7, "msg_7", "delivered", 2))).toStrictEqual({ plant });
    expect(ledger.isComplete(plant)).toBe(true);
    expect(plant).toMatchObject({ attempts: 2, lastStatus: 200, lastDurationMs: 3, webhookId: "msg_7" });
  });

  it("returns the plant a handler line was about once its webhook id is known", () => {
    const ledger = createDeliveryLedger();
    expect(ledger.receiverLine(handled("msg_9"))).toBeUndefined();
    ledger.storeLine(attempt(9, "msg_9", "retrying"));
    // The store names the webhook id (its message, not the plant); the plant's id comes from the receiver.
    expect(ledger.receiverLine(handled("msg_9"))).toMatchObject({ webhookId: "msg_9", attempts: 1 });
    ledger.receiverLine(stored(9, "msg_9"));
    expect(ledger.plants.get("msg_9")?.id).toBe(9);
  });

  it("reports attempts that did not deliver with their outcome", () => {
    const ledger = createDeliveryLedger();
    expect(ledger.storeLine(attempt(4, "msg_4", "retrying"))).toMatchObject({
      plant: { webhookId: "msg_4", lastStatus: 500 },
      notDelivered: "retrying",
    });
    expect(ledger.storeLine({ msg: "listening", url: "http://127.0.0.1:1" })).toBeUndefined();
  });

  it("reads the apps' events, not their message text", () => {
    const ledger = createDeliveryLedger();
    // The old message texts without an event: reworded or not, they count for nothing.
    ledger.receiverLine({ msg: "plant webhook received", webhookId: "msg_1", duplicate: false });
    ledger.receiverLine({ msg: "plant received", plantId: 1, webhookId: "msg_1", name: "Plant 1" });
    ledger.storeLine({ msg: "delivery attempt", webhookId: "msg_1", outcome: "delivered" });
    expect(ledger.plants.size).toBe(0);
    expect(ledger.handlerCalls("msg_1")).toBe(0);
    // The same facts as events, under any message text.
    ledger.receiverLine({ ...handled("msg_1"), msg: "reworded" });
    ledger.receiverLine({ ...stored(1, "msg_1"), msg: "reworded" });
    ledger.storeLine({ ...attempt(1, "msg_1", "delivered"), msg: "reworded" });
    expect(ledger.verdict(1)).toStrictEqual({ arrived: 1, duplicates: 0, ok: true });
  });
});
