import { vectors } from "@plant-store/spec";
import { describe, expect, it } from "vitest";
import { WebhookHeadersSchema } from "./webhook-headers.js";

describe("WebhookHeadersSchema", () => {
  it.each(vectors.map((v) => [v.name, v] as const))("accepts the headers of vector %s", (_name, vector) => {
    const headers = {
      "webhook-id": vector.received.id,
      "webhook-timestamp": String(vector.received.timestamp),
      "webhook-signature": vector.received.signature,
    };
    expect(WebhookHeadersSchema.parse(headers)).toStrictEqual(headers);
  });

  it.each([
    ["a missing signature", { "webhook-id": "msg_1", "webhook-timestamp": "1" }],
    ["an id with a space", { "webhook-id": "msg 1", "webhook-timestamp": "1", "webhook-signature": "v1,x" }],
    [
      "an id of 257 characters",
      { "webhook-id": "a".repeat(257), "webhook-timestamp": "1", "webhook-signature": "v1,x" },
    ],
    [
      "a negative timestamp",
      { "webhook-id": "msg_1", "webhook-timestamp": "-1", "webhook-signature": "v1,x" },
    ],
    [
      "a timestamp in milliseconds with a decimal point",
      { "webhook-id": "msg_1", "webhook-timestamp": "1.5", "webhook-signature": "v1,x" },
    ],
    [
      "a 16-digit timestamp",
      { "webhook-id": "msg_1", "webhook-timestamp": "1".repeat(16), "webhook-signature": "v1,x" },
    ],
    ["an empty signature", { "webhook-id": "msg_1", "webhook-timestamp": "1", "webhook-signature": "" }],
    [
      "a signature header over 4096 characters",
      { "webhook-id": "msg_1", "webhook-timestamp": "1", "webhook-signature": "v".repeat(4097) },
    ],
  ])("refuses %s", (_what, headers) => {
    expect(WebhookHeadersSchema.safeParse(headers).success).toBe(false);
  });
});
