/** At most `count` handshakes in any `windowMs`. */
export interface HandshakeLimit {
  count: number;
  windowMs: number;
}

export interface HandshakeLimits {
  /** Handshakes to one endpoint. */
  perEndpoint: HandshakeLimit;
  /** Handshakes to all the endpoints of one owner (a subscriber, or the operator), together. */
  perOwner: HandshakeLimit;
}

/**
 * The defaults. Each handshake is one signed POST from the store's address to a URL the owner chose:
 * without a bound, "verify again" in a loop made the store a port scanner and a request amplifier (one
 * subscriber, 50 endpoints at one URL: 50 POSTs there per round). A receiver being set up needs a few
 * tries a minute (each waits up to 10 s for the answer); adding endpoints runs one each, so an owner
 * adding 20 in a minute still gets every one tried at once, and the 21st is tried when asked again.
 */
export const HANDSHAKE_LIMITS: HandshakeLimits = {
  perEndpoint: { count: 3, windowMs: 60_000 },
  perOwner: { count: 20, windowMs: 60_000 },
};

export type HandshakeVerdict =
  | { allowed: true }
  /** Refused: which limit, and how long until one more fits (at least 1 s). */
  | { allowed: false; limit: "endpoint" | "owner"; retryAfterSeconds: number };

export interface HandshakeThrottle {
  /**
   * Takes one handshake for the endpoint and its owner when both limits have room (both are counted
   * then, neither when refused).
   */
  take(endpointId: number, owner: string): HandshakeVerdict;
}

/** Past this many keys, a take first drops every key whose window is empty (removed endpoints). */
const SWEEP_AT = 10_000;

/**
 * A sliding window per key: the times of the handshakes of the last `windowMs`, so no window of that
 * length ever holds more than `count` (a fixed window would allow twice that across its edge). In
 * memory, per process: with several store processes on one PostgreSQL, each has its own.
 */
export function createHandshakeThrottle(
  limits: HandshakeLimits = HANDSHAKE_LIMITS,
  now: () => number = Date.now,
): HandshakeThrottle {
  for (const [name, limit] of Object.entries(limits) as [string, HandshakeLimit][]) {
    if (!Number.isInteger(limit.count) || limit.count < 1)
      throw new RangeError(`${name}.count must be a positive integer`);
    if (!Number.isInteger(limit.windowMs) || limit.windowMs < 1)
      throw new RangeError(`${name}.windowMs must be a positive integer`);
  }
  const endpoints = new Map<string, number[]>();
  const owners = new Map<string, number[]>();

  /** The key's times still inside the window ending now (dropping the key when none is). */
  const recent = (times: Map<string, number[]>, key: string, limit: HandshakeLimit, at: number) => {
    const kept = (times.get(key) ?? []).filter((time) => time > at - limit.windowMs);
    if (kept.length === 0) times.delete(key);
    else times.set(key, kept);
    return kept;
  };
  const sweep = (times: Map<string, number[]>, limit: HandshakeLimit, at: number) => {
    if (times.size < SWEEP_AT) return;
    for (const key of [...times.keys()]) recent(times, key, limit, at);
  };
  const refusal = (kept: number[], limit: HandshakeLimit, at: number) =>
    Math.max(1, Math.ceil(((kept[0] as number) + limit.windowMs - at) / 1000));

  return {
    take(endpointId, owner) {
      const at = now();
      sweep(endpoints, limits.perEndpoint, at);
      sweep(owners, limits.perOwner, at);
      const byEndpoint = recent(endpoints, String(endpointId), limits.perEndpoint, at);
      if (byEndpoint.length >= limits.perEndpoint.count)
        return {
          allowed: false,
          limit: "endpoint",
          retryAfterSeconds: refusal(byEndpoint, limits.perEndpoint, at),
        };
      const byOwner = recent(owners, owner, limits.perOwner, at);
      if (byOwner.length >= limits.perOwner.count)
        return { allowed: false, limit: "owner", retryAfterSeconds: refusal(byOwner, limits.perOwner, at) };
      endpoints.set(String(endpointId), [...byEndpoint, at]);
      owners.set(owner, [...byOwner, at]);
      return { allowed: true };
    },
  };
}
