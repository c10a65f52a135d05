import { describe, expect, it } from "vitest";
import { DeliveryClientNotLoadedError } from "../errors.js";
import { createDeliveryClient } from "./create-delivery-client.js";

describe("createDeliveryClient", () => {
  it("refuses to hand out got before it is loaded, naming the way to load it", () => {
    const client = createDeliveryClient();
    try {
      expect(() => client.got).toThrow(DeliveryClientNotLoadedError);
      expect(() => client.got).toThrow(/await client\.load\(\)/);
    } finally {
      client.close();
    }
  });

  it("loads one got instance, configured for deliveries, and answers it on every call", async () => {
    const client = createDeliveryClient({ timeoutMs: 1234, userAgent: "bench-agent" });
    try {
      const [first, second] = await Promise.all([client.load(), client.load()]);
      expect(second).toBe(first);
      expect(await client.load()).toBe(first);
      expect(client.got).toBe(first);
      const options = first.defaults.options;
      expect(options.timeout.request).toBe(1234);
      expect(options.followRedirect).toBe(false);
      expect(options.throwHttpErrors).toBe(false);
      expect(options.retry.limit).toBe(0);
      expect(options.headers["user-agent"]).toBe("bench-agent");
    } finally {
      client.close();
    }
  });
});
