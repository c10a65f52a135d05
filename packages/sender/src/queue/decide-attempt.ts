import type {
  AttemptOutcome,
  AttemptReport,
  DeliveryStatus,
  EndpointStatus,
  RecordOptions,
} from "../outbox.js";
import { failingReason } from "./failing-reason.js";

/** A delivery row as the record's transaction sees it. Times in Unix ms on the store's clock. */
export interface DeliveryState {
  status: DeliveryStatus;
  leaseOwner: string | null;
  leaseUntil: number | null;
  attemptCount: number;
  /** Attempts since the schedule last started over: indexes the retry schedule. */
  roundAttempts: number;
  nextAttemptAt: number;
}

/** An endpoint row as the record's transaction sees it (read under its lock when the attempt failed). */
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

/** Everything that follows one attempt: what is stored, and what the worker is told. */
export interface AttemptDecision {
  held: boolean;
  /** The outcome stored: the policy's, or `disabled` when this failure disables the endpoint. */
  outcome: AttemptOutcome;
  /** The attempt row's number, 1-based over the delivery's life. */
  attemptNumber: number;
  delivery: DeliveryChange;
  endpoint?: EndpointChange;
  disabledEndpoint?: string;
  /** When the next attempt is due (outcome `retrying`), on the store's clock. */
  nextAttemptAt?: number;
  /** The same as a delay from the store's now: the worker wakes after it, whatever its own clock says. */
  retryInMs?: number;
}

/** The parts of a retry policy the decision reads. */
export type DecisionPolicy = RecordOptions["policy"];

const STATUS_AFTER: Record<AttemptOutcome, DeliveryStatus> = {
  delivered: "delivered",
  retrying: "pending",
  failed: "failed",
  disabled: "failed",
};

/**
 * What follows one attempt, decided once, inside the transaction that records it, on the store's clock
 * (`now`): the policy's verdict on the answer (delivered, retry after a delay, failed, 410 Gone), then
 * the endpoint's failing run from the row as it stands now (a success recorded by another worker counts).
 * Only the lease holder (same worker, same claim, delivery still pending) moves the delivery and speaks
 * for the endpoint; a late result only counts. A failure starts the endpoint's failing run, unless the
 * last failure is recent enough to continue it (`failureGapMs`), and disables the endpoint when the run
 * has lasted `disableAfterMs` (or at once for 410 Gone). The worker is told what was decided and never
 * decides again.
 */
export function decideAttempt(
  report: AttemptReport,
  policy: DecisionPolicy,
  delivery: DeliveryState,
  endpoint: EndpointState | undefined,
  now: number,
): AttemptDecision {
  const held =
    delivery.leaseOwner === report.workerId &&
    delivery.status === "pending" &&
    (report.leaseUntil === undefined || delivery.leaseUntil === report.leaseUntil.getTime());
  const verdict = policy.decide({ result: report.result, roundAttempts: delivery.roundAttempts + 1 });
  const attemptNumber = delivery.attemptCount + 1;
  if (!held) return { held, outcome: verdict.outcome, attemptNumber, delivery: { kind: "counted" } };

  let outcome = verdict.outcome;
  let endpointChange: EndpointChange | undefined;
  let disabledEndpoint: string | undefined;
  if (verdict.endpointSucceeded) endpointChange = { kind: "succeeded" };
  else if (endpoint) {
    const period = policy.disableAfterMs;
    const gap = policy.failureGapMs ?? period;
    const continues =
      endpoint.failingSince !== null &&
      endpoint.lastFailureAt !== null &&
      endpoint.lastFailureAt >= now - gap;
    const failingSince = continues ? (endpoint.failingSince as number) : now;
    endpointChange = { kind: "failed", failingSince, lastFailureAt: now };
    if (endpoint.status === "active") {
      const failingFor = now - failingSince;
      disabledEndpoint =
        verdict.disableEndpoint ?? (failingFor >= period ? failingReason(failingFor) : undefined);
      if (disabledEndpoint !== undefined) {
        endpointChange.disabledReason = disabledEndpoint;
        outcome = "disabled";
      }
    }
  }
  const retrying = outcome === "retrying";
  const retryInMs = retrying ? Math.max(0, verdict.retryInMs ?? 0) : undefined;
  const decision: AttemptDecision = {
    held,
    outcome,
    attemptNumber,
    delivery: {
      kind: "finished",
      status: STATUS_AFTER[outcome],
      nextAttemptAt: retryInMs === undefined ? delivery.nextAttemptAt : now + retryInMs,
      lastStatus: report.result.status,
      lastError: report.result.error,
      updatedAt: now,
    },
  };
  if (retryInMs !== undefined) {
    decision.retryInMs = retryInMs;
    decision.nextAttemptAt = now + retryInMs;
  }
  if (endpointChange) decision.endpoint = endpointChange;
  if (disabledEndpoint !== undefined) decision.disabledEndpoint = disabledEndpoint;
  return decision;
}
