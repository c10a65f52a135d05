import { InvalidRetryPolicyError } from "../errors.js";
import { isSuccessStatus } from "../is-success-status.js";
import type { RetryPolicy } from "../retry-policy.js";
import { createRetrySchedule } from "./create-retry-schedule.js";

export interface RetryPolicyOptions {
  /** Delays before each attempt, in ms or as `"0,5s,5m"`; default `DEFAULT_RETRY_SCHEDULE`. */
  schedule?: string | readonly number[];
  /** Fraction each delay varies by, either way; default 0.2 (±20 %). Spreads retries of a burst apart. */
  jitter?: number;
  /** Longest `Retry-After` honoured, in ms; default 1 hour. A receiver must not park deliveries for days. */
  maxRetryAfterMs?: number;
  /**
   * An endpoint failing without a single success for this long is disabled; default 5 days. The outbox
   * decides when it records a failed attempt, from the endpoint as stored then (see `failureGapMs`).
   */
  disableAfterMs?: number;
  /**
   * A run of failures raises `endpoint.failing` (and so, at its end, `endpoint.recovered`) only once it
   * has lasted this long: an endpoint failing now and then does not flood its operator with a pair per
   * failure. Default a minute, or half of `disableAfterMs` when that is shorter (so `endpoint.failing`
   * comes before `endpoint.disabled`); 0: at the first failure.
   */
  alertAfterMs?: number;
  /**
   * Answers that end a delivery at once, `failed`, instead of being retried (say `[400, 413, 422]`: the
   * receiver refuses this payload, and will refuse it every time). Default none: as Standard Webhooks
   * says, every answer but a 2xx is retried on the schedule (and 410 Gone disables the endpoint).
   */
  finalStatuses?: readonly number[];
  /** Source of randomness in [0, 1); default Math.random. */
  random?: () => number;
}

export const DEFAULT_MAX_RETRY_AFTER_MS = 3_600_000;
export const DEFAULT_DISABLE_AFTER_MS = 5 * 86_400_000;

/**
 * Turns an attempt's result into what happens next: 2xx delivered; 410 Gone disables the endpoint;
 * anything else is retried on the schedule (or after `Retry-After`, clamped) until the schedule
 * runs out, when the delivery is failed and kept for replay. Whether the endpoint has been failing for
 * `disableAfterMs` is left to the outbox, which sees every worker's results. The outbox calls `decide`
 * inside the transaction that records the attempt (see `decideAttempt`): the one place an attempt's
 * fate is decided.
 */
export function createRetryPolicy(options: RetryPolicyOptions = {}): RetryPolicy {
  const schedule = createRetrySchedule(options.schedule);
  const jitter = options.jitter ?? 0.2;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const disableAfterMs = options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS;
  const alertAfterMs = options.alertAfterMs ?? Math.min(60_000, Math.floor(disableAfterMs / 2));
  if (!Number.isSafeInteger(alertAfterMs) || alertAfterMs < 0)
    throw new InvalidRetryPolicyError("alertAfterMs must be a whole number of milliseconds, 0 or more");
  const random = options.random ?? Math.random;
  const finalStatuses = Object.freeze([...(options.finalStatuses ?? [])]);
  if (
    finalStatuses.some(
      (status) => !Number.isInteger(status) || status < 100 || status > 599 || isSuccessStatus(status),
    )
  )
    throw new InvalidRetryPolicyError(
      "finalStatuses must be HTTP statuses 100 to 599, not a 2xx (those deliver)",
    );
  const failureGapMs = 2 * Math.max(Math.max(...schedule) * (1 + jitter), maxRetryAfterMs);

  function delayBefore(attempt: number): number {
    const base = schedule[attempt - 1] ?? schedule[schedule.length - 1] ?? 0;
    return Math.max(0, Math.round(base * (1 + jitter * (2 * random() - 1))));
  }

  return {
    schedule,
    maxRetryAfterMs,
    disableAfterMs,
    alertAfterMs,
    finalStatuses,
    failureGapMs,
    delayBefore,
    decide({ result, roundAttempts }) {
      if (isSuccessStatus(result.status)) return { outcome: "delivered", endpointSucceeded: true };
      if (result.status === 410) {
        return { outcome: "disabled", endpointSucceeded: false, disableEndpoint: "410 Gone" };
      }
      if (roundAttempts >= schedule.length || finalStatuses.includes(result.status ?? 0))
        return { outcome: "failed", endpointSucceeded: false };
      const retryInMs =
        result.retryAfterMs === undefined
          ? delayBefore(roundAttempts + 1)
          : Math.min(Math.max(0, result.retryAfterMs), maxRetryAfterMs);
      return { outcome: "retrying", endpointSucceeded: false, retryInMs };
    },
  };
}
