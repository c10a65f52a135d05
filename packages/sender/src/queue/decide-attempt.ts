import { failingReason } from "./failing-reason.js";
import type { AttemptOutcome, DeliveryStatus, EndpointStatus, RecordAttemptInput } from "./outbox.js";

/** A delivery row as the record's transaction sees it, under its lock. Times in Unix ms. */
export interface DeliveryState {
  status: DeliveryStatus;
  leaseOwner: string | null;
  leaseUntil: number | null;
  attemptCount: number;
  nextAttemptAt: number;
}

/** An endpoint row as the record's transaction sees it (locked when the attempt failed). */
export interface EndpointState {
  status: EndpointStatus;
  failingSince: number | null;
  lastFailureAt: number | null;
}

/** What to write to the endpoint row, if anything. */
export type EndpointChange =
  /** The endpoint answered 2xx: end its failing run, if it has one (a guarded write: usually nothing). */
  | { kind: "succeeded" }
  /** It failed: the run's start and last failure, and a reason when this failure disables it. */
  | { kind: "failed"; failingSince: number; lastFailureAt: number; disabledReason?: string };

/** What to write to the delivery row. */
export type DeliveryChange =
  /** The lease holder's attempt moves the delivery on and frees the lease. */
  | {
      kind: "finished";
      status: DeliveryStatus;
      nextAttemptAt: number;
      lastStatus: number | null;
      lastError: string | null;
      updatedAt: number;
    }
  /** A late attempt (lease lost) only counts, so the holder's next attempt never reuses its number. */
  | { kind: "counted" };

export interface AttemptDecision {
  held: boolean;
  /** The outcome to store: the worker's, or `disabled` when this failure disables the endpoint. */
  outcome: AttemptOutcome;
  /** The attempt row's number, 1-based over the delivery's life. */
  attemptNumber: number;
  delivery: DeliveryChange;
  endpoint?: EndpointChange;
  disabledEndpoint?: string;
}

export interface DecideAttemptClock {
  /** The store's time (the database clock on PostgreSQL). */
  storeNow: number;
  /** The worker's time when it asked to record; `nextAttemptAt` was decided on this clock. */
  callerNow: number;
}

const STATUS_AFTER: Record<AttemptOutcome, DeliveryStatus> = {
  delivered: "delivered",
  retrying: "pending",
  failed: "failed",
  disabled: "failed",
};

/**
 * What follows one attempt, decided from the rows as they stand inside the record's transaction: the
 * one place both stores take their decisions from, so the SQLite and PostgreSQL outboxes only read and
 * write. Only the lease holder (same worker, same claim, delivery still pending) moves the delivery and
 * speaks for the endpoint; a late result may predate what is stored. A failure starts the endpoint's
 * failing run, unless the last failure is recent enough to continue it (`failureGapMs`), and disables the
 * endpoint when the run has lasted `disableAfterMs` (or at once for 410 Gone).
 */
export function decideAttempt(
  input: RecordAttemptInput,
  delivery: DeliveryState,
  endpoint: EndpointState | undefined,
  clock: DecideAttemptClock,
): AttemptDecision {
  const held =
    delivery.leaseOwner === input.workerId &&
    delivery.status === "pending" &&
    (input.leaseUntil === undefined || delivery.leaseUntil === input.leaseUntil.getTime());
  const attemptNumber = delivery.attemptCount + 1;
  if (!held) return { held, outcome: input.outcome, attemptNumber, delivery: { kind: "counted" } };

  const now = clock.storeNow;
  let outcome = input.outcome;
  let endpointChange: EndpointChange | undefined;
  let disabledEndpoint: string | undefined;
  if (input.endpointSucceeded) endpointChange = { kind: "succeeded" };
  else if (endpoint) {
    const period = input.disableAfterMs;
    const gap = input.failureGapMs ?? period ?? Number.MAX_SAFE_INTEGER;
    const continues =
      endpoint.failingSince !== null &&
      endpoint.lastFailureAt !== null &&
      endpoint.lastFailureAt >= now - gap;
    const failingSince = continues ? (endpoint.failingSince as number) : now;
    endpointChange = { kind: "failed", failingSince, lastFailureAt: now };
    if (endpoint.status === "active") {
      const failingFor = now - failingSince;
      disabledEndpoint =
        input.disableEndpoint ??
        (period !== undefined && failingFor >= period ? failingReason(failingFor) : undefined);
      if (disabledEndpoint !== undefined) {
        endpointChange.disabledReason = disabledEndpoint;
        outcome = "disabled";
      }
    }
  }
  // The next attempt's time travels as a delay, so it lands on the store's clock.
  const nextAttemptAt =
    input.nextAttemptAt === undefined
      ? delivery.nextAttemptAt
      : now + Math.max(0, input.nextAttemptAt.getTime() - clock.callerNow);
  const decision: AttemptDecision = {
    held,
    outcome,
    attemptNumber,
    delivery: {
      kind: "finished",
      status: STATUS_AFTER[outcome],
      nextAttemptAt,
      lastStatus: input.attempt.status,
      lastError: input.attempt.error,
      updatedAt: now,
    },
  };
  if (endpointChange) decision.endpoint = endpointChange;
  if (disabledEndpoint !== undefined) decision.disabledEndpoint = disabledEndpoint;
  return decision;
}
