import { isIPv4 } from "node:net";

/** The 8 groups of an IPv6 address, a trailing dotted IPv4 part turned into the last two. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted !== undefined) {
    if (!isIPv4(dotted)) return undefined;
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split(".").map(Number);
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined) =>
    part ? part.split(":").map((group) => Number.parseInt(group, 16)) : [];
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  return [...head, ...Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...tail];
}

/**
 * Who a connection counts as, for per-client limits: an IPv4 address as it is (an IPv4-mapped IPv6
 * one too), an IPv6 address by its /64, because one host or home is routinely given a whole /64 and
 * could otherwise count as 2^64 clients.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined || address === "") return "unknown";
  const unzoned = address.split("%")[0] ?? address;
  if (!unzoned.includes(":")) return unzoned;
  const groups = ipv6Groups(unzoned);
  if (groups === undefined || groups.some((group) => !Number.isInteger(group) || group < 0 || group > 0xffff))
    return unzoned;
  const [a, b, c, d, e, f, g, h] = groups as [number, number, number, number, number, number, number, number];
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff)
    return `${g >> 8}.${g & 0xff}.${h >> 8}.${h & 0xff}`;
  return `${[a, b, c, d].map((group) => group.toString(16)).join(":")}::/64`;
}
