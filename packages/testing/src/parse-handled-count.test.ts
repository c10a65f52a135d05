import { describe, expect, it } from "vitest";
import { parseHandledCount } from "./parse-handled-count.js";

describe("parseHandledCount", () => {
  it("sums the received series over every status and ignores the other outcomes", () => {
    const text = [
      "# HELP plant_receiver_webhook_requests_total Webhook requests by outcome.",
      "# TYPE plant_receiver_webhook_requests_total counter",
      'plant_receiver_webhook_requests_total{outcome="received",status="200"} 1200',
      'plant_receiver_webhook_requests_total{outcome="duplicate",status="200"} 4',
      'plant_receiver_webhook_requests_total{status="201",outcome="received"} 3',
      'plant_receiver_webhook_requests_total{outcome="rejected",status="401"} 2',
      'plant_receiver_webhook_request_duration_seconds_count{outcome="received"} 1203',
    ].join("\n");
    expect(parseHandledCount(text)).toBe(1203);
  });

  it("is 0 before any handler ran", () => {
    expect(parseHandledCount("# TYPE plant_receiver_webhook_requests_total counter\n")).toBe(0);
  });
});
