import { describe, expect, it } from "vitest";
import { type Delivery, DeliverySchema, NEW_PLANT_EVENT } from "./delivery.js";
import { MAX_WEBHOOK_ID_LENGTH } from "./limits.js";

describe("DeliverySchema", () => {
  it("accepts what a receiver's handler is given: the webhook id and the signing time", () => {
    const delivery: Delivery = { webhookId: "msg_1", timestamp: new Date("2026-01-01T00:00:00Z") };
    expect(DeliverySchema.parse(delivery)).toStrictEqual(delivery);
  });

  it("holds the webhook id to the same rules as the webhook-id header", () => {
    const timestamp = new Date();
    expect(DeliverySchema.safeParse({ webhookId: "msg 1", timestamp }).success).toBe(false);
    expect(DeliverySchema.safeParse({ webhookId: "", timestamp }).success).toBe(false);
    expect(
      DeliverySchema.safeParse({ webhookId: "m".repeat(MAX_WEBHOOK_ID_LENGTH + 1), timestamp }).success,
    ).toBe(false);
  });

  it("wants a Date, so metadata revived from JSON has to turn its timestamp back into one", () => {
    const json = JSON.parse(JSON.stringify({ webhookId: "msg_1", timestamp: new Date(0) }));
    expect(DeliverySchema.safeParse(json).success).toBe(false);
    expect(DeliverySchema.parse({ ...json, timestamp: new Date(json.timestamp) }).timestamp.getTime()).toBe(
      0,
    );
  });
});

describe("NEW_PLANT_EVENT", () => {
  it("names the contract's one event by its operationId in the document", () => {
    const event: "newPlant" = NEW_PLANT_EVENT;
    expect(event).toBe("newPlant");
  });
});

describe("DeliverySchema's traceparent", () => {
  it("is optional, and holds a value to the W3C layout", () => {
    const base = { webhookId: "msg_1", timestamp: new Date(0) };
    expect(DeliverySchema.parse(base).traceparent).toBeUndefined();
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect(DeliverySchema.parse({ ...base, traceparent }).traceparent).toBe(traceparent);
    expect(DeliverySchema.safeParse({ ...base, traceparent: "00-nope" }).success).toBe(false);
  });
});
