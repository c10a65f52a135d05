import { describe, expect, it } from "vitest";
import { isPublicAddress } from "./is-public-address.js";

describe("isPublicAddress", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    // IPv4-compatible IPv6 (::/96, deprecated by RFC 4291), as WHATWG URL parsing spells
    // [::127.0.0.1] and as written; some stacks still route it to the IPv4 address inside.
    "::7f00:1",
    "::127.0.0.1",
    "::808:808",
    "::8.8.8.8",
    "::a00:1",
    "0:0:0:0:0:0:a9fe:a9fe",
    "::ffff",
    "224.0.0.1",
    "not an ip",
  ])("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "2a00:1450::1:0:1"])(
    "accepts %s",
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});
