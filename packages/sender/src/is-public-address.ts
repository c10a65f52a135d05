import { createRequire } from "node:module";
import type * as IpAddr from "ipaddr.js";

// ipaddr.js is CommonJS without named-export hints, so ESM sees only its default export.
const ipaddr = createRequire(import.meta.url)("ipaddr.js") as typeof IpAddr;

/**
 * Whether an IP address is an ordinary public unicast address. Loopback, private, link-local
 * (which holds the cloud metadata address 169.254.169.254), unique-local, CGNAT, unspecified,
 * multicast and reserved ranges are not; IPv4-mapped IPv6 is judged by the IPv4 address inside.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as IpAddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as IpAddr.IPv6).toIPv4Address();
  }
  return parsed.range() === "unicast";
}
