import { describe, expect, it } from "vitest";
import { joinApiUrl } from "./join-api-url.js";

describe("joinApiUrl", () => {
  it("keeps the path the API is mounted at, with or without a trailing slash", () => {
    for (const base of [
      "http://h.example/webhooks",
      "http://h.example/webhooks/",
      "http://h.example/webhooks//",
    ])
      expect(joinApiUrl(base, "/endpoints/3").href).toBe("http://h.example/webhooks/endpoints/3");
    expect(joinApiUrl("https://h.example:8443/a/b", "/listen").href).toBe(
      "https://h.example:8443/a/b/listen",
    );
    expect(joinApiUrl("http://127.0.0.1:3000", "/deliveries").href).toBe("http://127.0.0.1:3000/deliveries");
  });

  it("adds the query's given values, encoded, and leaves out the absent ones", () => {
    const url = joinApiUrl("http://h.example/webhooks", "/deliveries", {
      status: "failed",
      eventType: "order.created",
      endpointId: undefined,
      limit: "a&b",
    });
    expect(url.href).toBe(
      "http://h.example/webhooks/deliveries?status=failed&eventType=order.created&limit=a%26b",
    );
  });
});
