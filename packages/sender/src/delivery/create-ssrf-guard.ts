import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { DELIVERY_TIMEOUT_MS } from "@plant-store/types";
import { DnsTimeoutError, SsrfBlockedError } from "../errors.js";
import { isPublicAddress } from "./is-public-address.js";

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/** The endpoint a target is checked for, so a guard can decide per owner (its id once it has one). */
export interface SsrfTargetEndpoint {
  id?: number;
  /** Its owner: a subscriber, or null for the operator's own. */
  subscriberId: number | null;
}

export interface SsrfCheckOptions {
  /** Longest wait for the name to resolve, in ms; default the guard's `lookupTimeoutMs`. */
  timeoutMs?: number;
  /** The endpoint the URL is checked for (deliveries give theirs); what the per-endpoint options are asked about. */
  endpoint?: SsrfTargetEndpoint;
}

export interface SsrfGuard {
  /**
   * Resolves the URL's host now and returns the address to connect to, or throws SsrfBlockedError
   * (DnsTimeoutError when the name does not resolve in time).
   */
  check(url: string, options?: SsrfCheckOptions): Promise<ResolvedTarget>;
}

export interface SsrfGuardOptions {
  /**
   * Allow loopback and private targets (local development, tests, the demo): for every check, or per
   * endpoint (a function of the check's `endpoint`, undefined when the caller gave none), so that the
   * operator's setting need not cover its subscribers'. Default false.
   */
  allowPrivateTargets?: boolean | ((endpoint: SsrfTargetEndpoint | undefined) => boolean);
  /**
   * The one narrow exception when private targets are refused: a URL this returns true for is
   * delivered to whatever address it resolves to (the Plant Store's own `listen` relay on its admin
   * port). Decide by the endpoint (`listen` grants its session's endpoint id), never by a URL a stranger
   * could also choose; match an exact origin and path, never a whole address range.
   */
  isTrustedTarget?: (url: URL, endpoint: SsrfTargetEndpoint | undefined) => boolean;
  /** Name resolution; default `dns.lookup` with `all: true`. */
  resolve?: (hostname: string) => Promise<ResolvedTarget[]>;
  /** Longest wait for a name to resolve, in ms, when `check` is not given one; default DELIVERY_TIMEOUT_MS (15 s). */
  lookupTimeoutMs?: number;
}

// getaddrinfo cannot be cancelled: a lookup that outlives its time is abandoned, its answer ignored.
function withTimeout<T>(work: Promise<T>, timeoutMs: number, host: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new DnsTimeoutError(`${host} did not resolve within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

// In the order the system resolver gives (Node's default since 17, `verbatim`), so the address
// connected to is the one any other client on this host would pick first.
async function resolveAll(hostname: string): Promise<ResolvedTarget[]> {
  const results = await lookup(hostname, { all: true });
  // getaddrinfo answers only IPv4 (4) and IPv6 (6) addresses here.
  return results.map((entry) => ({ address: entry.address, family: entry.family as 4 | 6 }));
}

/** Distinct URLs whose parse a guard keeps; past it, it starts over (a store has far fewer endpoints). */
const MAX_PARSED_URLS = 10_000;

interface UrlTarget {
  protocol: string;
  /** The hostname, an IPv6 literal without its brackets. */
  host: string;
  /** 4 or 6 when the host is an address, else 0. */
  family: number;
}

function parseTarget(url: string): UrlTarget {
  const { hostname, protocol } = new URL(url);
  // WHATWG URL parsing allows "[" and "]" in a hostname only around a whole IPv6 literal, so
  // starting with one means ending with the other: the endsWith mutant is equivalent.
  // Stryker disable next-line MethodExpression: equivalent (endsWith), see above
  const bracketed = hostname.startsWith("[");
  const host = bracketed ? hostname.slice(1, -1) : hostname;
  return { protocol, host, family: isIP(host) };
}

/**
 * Refuses delivery targets inside the sender's own network. Every resolved address must be
 * public (a name with one public and one private address is refused: the connection could use
 * either), and the caller pins the connection to the returned address so DNS cannot change
 * between the check and the connect (DNS rebinding).
 */
export function createSsrfGuard(options: SsrfGuardOptions = {}): SsrfGuard {
  const resolve = options.resolve ?? resolveAll;
  const lookupTimeoutMs = options.lookupTimeoutMs ?? DELIVERY_TIMEOUT_MS;
  // What a URL says (its scheme, its host, whether that is an address) is the same at every attempt: it
  // is parsed once. What it resolves to is not, and is looked up at every check.
  const parsedUrls = new Map<string, UrlTarget>();
  function targetOf(url: string): UrlTarget {
    let target = parsedUrls.get(url);
    if (target === undefined) {
      target = parseTarget(url);
      if (parsedUrls.size >= MAX_PARSED_URLS) parsedUrls.clear();
      parsedUrls.set(url, target);
    }
    return target;
  }
  return {
    async check(url, checkOptions = {}) {
      const { protocol, host, family } = targetOf(url);
      if (protocol !== "http:" && protocol !== "https:") {
        throw new SsrfBlockedError(`Refusing a ${protocol} target: only http and https are delivered to`);
      }
      // A resolution failure propagates with its own code (ENOTFOUND…, ERR_DNS_TIMEOUT): it is retried like
      // any network error. The wait is bounded, so a name whose DNS hangs cannot hold a worker slot (and
      // its lease) past the attempt's time.
      const targets = family
        ? [{ address: host, family: family === 6 ? 6 : 4 } as const]
        : await withTimeout(resolve(host), checkOptions.timeoutMs ?? lookupTimeoutMs, host);
      const first = targets[0];
      if (!first) throw new SsrfBlockedError(`${host} resolved to no address`);
      const { endpoint } = checkOptions;
      const allowed =
        typeof options.allowPrivateTargets === "function"
          ? options.allowPrivateTargets(endpoint)
          : options.allowPrivateTargets === true;
      // A URL of its own for the callback, which may keep or change it.
      if (!allowed && options.isTrustedTarget?.(new URL(url), endpoint) !== true) {
        const blocked = targets.find((target) => !isPublicAddress(target.address));
        if (blocked)
          throw new SsrfBlockedError(`${host} resolves to a non-public address (${blocked.address})`);
      }
      return first;
    },
  };
}
