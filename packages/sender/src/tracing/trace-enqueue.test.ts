import { parseTraceparent } from "@plant-store/types";
import { describe, expect, it } from "vitest";
import { traceEnqueue } from "./trace-enqueue.js";

// No OpenTelemetry SDK is registered in this file.
const result = { messageId: 1, webhookId: "msg_1", duplicate: false, deliveries: 1 };

describe("traceEnqueue without an OpenTelemetry SDK", () => {
  it("still hands out a valid traceparent, a new trace for each message", () => {
    const seen: string[] = [];
    for (let i = 0; i < 3; i++)
      traceEnqueue(["msg_1", "msg_2"], (traceparents) => {
        seen.push(...traceparents);
        return [result, result];
      });
    expect(seen.map((value) => parseTraceparent(value)?.flags)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(new Set(seen.map((value) => parseTraceparent(value)?.traceId)).size).toBe(6);
  });

  it("answers what the enqueue answers, and passes its error on, at once or as a promise", async () => {
    const results = [result];
    expect(traceEnqueue(["msg_1"], () => results)).toBe(results);
    await expect(traceEnqueue(["msg_1"], async () => results)).resolves.toBe(results);
    const refused = new Error("refused");
    expect(() =>
      traceEnqueue(["msg_1"], () => {
        throw refused;
      }),
    ).toThrow(refused);
    await expect(traceEnqueue(["msg_1"], async () => Promise.reject(refused))).rejects.toBe(refused);
  });
});
