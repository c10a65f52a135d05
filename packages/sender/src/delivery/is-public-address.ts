import { createRequire } from "node:module";
import { BlockList, isIPv6 } from "node:net";
import type * as IpAddr from "ipaddr.js";

// ipaddr.js is CommonJS without named-export hints, so ESM sees only its default export.
const ipaddr = createRequire(import.meta.url)("ipaddr.js") as typeof IpAddr;

/**
 * IPv4-compatible IPv6 (`::/96`; `::` and `::1` are in it too). ipaddr.js calls `::7f00:1` (what
 * WHATWG URLs make of `[::127.0.0.1]`) unicast, and parses `::8.8.8.8` as if it were the mapped
 * `::ffff:8.8.8.8`; Node's own parser reads both as written. RFC 4291 deprecated these addresses,
 * no public host has one, and some stacks still route them to the IPv4 address inside.
 */
function isIpv4Compatible(address: string): boolean {
  // Built per call rather than once at load: a few microseconds, and a module that fails to load
  // would hide its mutants from the mutation tests (vitest reports no failed test, only a failed file).
  const prefix = new BlockList();
  prefix.addSubnet("::", 96, "ipv6");
  return prefix.check(address, "ipv6");
}

/**
 * Whether an IP address is an ordinary public unicast address. Loopback, private, link-local
 * (which holds the cloud metadata address 169.254.169.254), unique-local, CGNAT, unspecified,
 * multicast and reserved ranges are not, nor is any of `::/96`; IPv4-mapped IPv6 is judged by the
 * IPv4 address inside.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  if (isIPv6(address) && isIpv4Compatible(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as IpAddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as IpAddr.IPv6).toIPv4Address();
  }
  return parsed.range() === "unicast";
}
