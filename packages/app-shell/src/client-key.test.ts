import { describe, expect, it } from "vitest";
import { clientKey } from "./client-key.js";

describe("clientKey", () => {
  it("keeps an IPv4 address as it is, also written IPv4-mapped", () => {
    expect(clientKey("127.0.0.2")).toBe("127.0.0.2");
    expect(clientKey("::ffff:127.0.0.2")).toBe("127.0.0.2");
    expect(clientKey("::FFFF:7f00:2")).toBe("127.0.0.2");
  });

  it("counts an IPv6 address by its /64, however it is written", () => {
    const key = "2001:db8:0:1::/64";
    for (const address of [
      "2001:db8:0:1::1",
      "2001:0db8:0000:0001:ffff:ffff:ffff:ffff",
      "2001:db8::1:0:0:0:5",
      "2001:db8:0:1:1:2:3.4.5.6",
      "2001:db8:0:1::7%eth0",
    ])
      expect(clientKey(address), address).toBe(key);
    expect(clientKey("::1")).toBe("0:0:0:0::/64");
    expect(clientKey("2001:db8:0:2::1")).not.toBe(key);
  });

  it("keeps what it cannot read as it is, and names a missing address", () => {
    expect(clientKey("1:2:3")).toBe("1:2:3");
    expect(clientKey("1::2::3")).toBe("1::2::3");
    expect(clientKey("zz::1")).toBe("zz::1");
    expect(clientKey(undefined)).toBe("unknown");
    expect(clientKey("")).toBe("unknown");
  });
});
