import { createSampledWarning, type WarningLogger } from "./create-sampled-warning.js";

export interface AuthThrottleOptions {
  /** What is being guessed, for the log lines: "admin token", "read token". */
  credential: string;
  /** Wrong credentials a client may present in a burst before it has to wait. Default 20. */
  burst?: number;
  /** How fast a client earns back one attempt, in ms: its sustained rate of guesses. Default 1000. */
  refillMs?: number;
  /** Clients remembered at most; beyond, the longest untouched is forgotten. Default 10,000. */
  maxClients?: number;
  logger?: WarningLogger;
  /** Counts each refusal (a Prometheus counter's `inc`). */
  count?: (outcome: "wrong" | "throttled") => void;
  now?: () => number;
}

/** Slows down one client guessing a credential, and counts what it tried. */
export interface AuthThrottle {
  /** How long `client` must wait before a credential of its is looked at again: 0 when it may now. */
  retryAfterMs(client: string): number;
  /** `client` presented a wrong credential. */
  failed(client: string): void;
  /** `client` was refused without a look at its credential (it still had to wait). */
  throttled(client: string): void;
  /** Logs what the current log window counted (at shutdown). */
  flush(): void;
}

interface Bucket {
  /** Attempts left, fractional while refilling. */
  tokens: number;
  at: number;
}

/**
 * A token bucket of wrong credentials per client (key clients with `clientKey`): `burst` wrong
 * ones at once, then one per `refillMs`. A client that has used its burst gets 429 with Retry-After
 * before its credential is even compared, so it learns nothing more by trying faster; the right
 * credential from the same client waits too, which on a shared address is the price of a cap that
 * holds. Before, one client made 12-14 thousand read-token and 7.8 thousand admin-token guesses a
 * second. Refusals are counted (`count`) and logged sampled: the first of a window at once, the rest
 * as one line with their number.
 */
export function createAuthThrottle(options: AuthThrottleOptions): AuthThrottle {
  const burst = options.burst ?? 20;
  const refillMs = options.refillMs ?? 1000;
  const maxClients = options.maxClients ?? 10_000;
  const now = options.now ?? Date.now;
  if (!Number.isInteger(burst) || burst < 1) throw new RangeError(`burst must be at least 1, got ${burst}`);
  if (!(refillMs > 0)) throw new RangeError(`refillMs must be more than 0, got ${refillMs}`);
  const buckets = new Map<string, Bucket>();
  const logger = options.logger;
  const wrong = logger && createSampledWarning(logger, "authentication failed");
  const slowed = logger && createSampledWarning(logger, "authentication throttled (429)");

  const level = (client: string, at: number): Bucket | undefined => {
    const bucket = buckets.get(client);
    if (bucket === undefined) return undefined;
    bucket.tokens = Math.min(burst, bucket.tokens + (at - bucket.at) / refillMs);
    bucket.at = at;
    if (bucket.tokens >= burst) {
      // Back to a full burst: nothing to remember.
      buckets.delete(client);
      return undefined;
    }
    return bucket;
  };

  return {
    retryAfterMs(client) {
      const bucket = level(client, now());
      if (bucket === undefined || bucket.tokens >= 1) return 0;
      return Math.ceil((1 - bucket.tokens) * refillMs);
    },
    failed(client) {
      const at = now();
      const bucket = level(client, at) ?? { tokens: burst, at };
      bucket.tokens -= 1;
      // Most recently failed last: the first entry is the one to forget when too many are remembered.
      buckets.delete(client);
      buckets.set(client, bucket);
      if (buckets.size > maxClients) {
        const oldest = buckets.keys().next().value;
        if (oldest !== undefined) buckets.delete(oldest);
      }
      options.count?.("wrong");
      wrong?.note({ client, credential: options.credential });
    },
    throttled(client) {
      options.count?.("throttled");
      slowed?.note({ client, credential: options.credential });
    },
    flush() {
      wrong?.flush();
      slowed?.flush();
    },
  };
}
