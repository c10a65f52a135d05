import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { SsrfGuard } from "@plant-store/sender";
import type { ListenRelay } from "./create-listen-relay.js";

/**
 * The worker's guard plus the one exception `listen` needs: a delivery to an open session's own
 * endpoint (by id) at the relay URL that session made goes to the API itself, whatever its address.
 * Everything else is the given guard's decision.
 */
export function trustListenRelay(guard: SsrfGuard, relay: Pick<ListenRelay, "grants">): SsrfGuard {
  return {
    async check(url, options) {
      const id = options?.endpoint?.id;
      if (id === undefined || !URL.canParse(url) || !relay.grants(id, new URL(url)))
        return guard.check(url, options);
      const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
      const family = isIP(host);
      if (family === 4 || family === 6) return { address: host, family };
      const resolved = await lookup(host);
      return { address: resolved.address, family: resolved.family === 6 ? 6 : 4 };
    },
  };
}
