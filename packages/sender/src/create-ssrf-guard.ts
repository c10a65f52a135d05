import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPublicAddress } from "./is-public-address.js";
import { SsrfBlockedError } from "./ssrf-blocked-error.js";

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

export interface SsrfGuard {
  /** Resolves the URL's host now and returns the address to connect to, or throws SsrfBlockedError. */
  check(url: string): Promise<ResolvedTarget>;
}

export interface SsrfGuardOptions {
  /** Allow loopback and private targets (local development, tests, the demo). Default false. */
  allowPrivateTargets?: boolean;
  /** Name resolution; default `dns.lookup` with `all: true`. */
  resolve?: (hostname: string) => Promise<ResolvedTarget[]>;
}

async function resolveAll(hostname: string): Promise<ResolvedTarget[]> {
  const results = await lookup(hostname, { all: true, verbatim: true });
  return results.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
}

/**
 * Refuses delivery targets inside the sender's own network. Every resolved address must be
 * public (a name with one public and one private address is refused: the connection could use
 * either), and the caller pins the connection to the returned address so DNS cannot change
 * between the check and the connect (DNS rebinding).
 */
export function createSsrfGuard(options: SsrfGuardOptions = {}): SsrfGuard {
  const resolve = options.resolve ?? resolveAll;
  return {
    async check(url) {
      const { hostname, protocol } = new URL(url);
      if (protocol !== "http:" && protocol !== "https:") {
        throw new SsrfBlockedError(`Refusing a ${protocol} target: only http and https are delivered to`);
      }
      const host = hostname.replace(/^\[(.*)\]$/, "$1");
      const family = isIP(host);
      // A resolution failure propagates with its own code (ENOTFOUND…): it is retried like any network error.
      const targets = family
        ? [{ address: host, family: family === 6 ? 6 : 4 } as const]
        : await resolve(host);
      const first = targets[0];
      if (!first) throw new SsrfBlockedError(`${host} resolved to no address`);
      if (!options.allowPrivateTargets) {
        const blocked = targets.find((target) => !isPublicAddress(target.address));
        if (blocked)
          throw new SsrfBlockedError(`${host} resolves to a non-public address (${blocked.address})`);
      }
      return first;
    },
  };
}
