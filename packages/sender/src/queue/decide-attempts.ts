import type { AttemptReport, DeliveryStatus, EndpointStatus } from "../outbox.js";
import {
  type AttemptDecision,
  type DecisionPolicy,
  type DeliveryState,
  decideAttempt,
  type EndpointState,
} from "./decide-attempt.js";

/** A delivery row as a batch record reads it (locked), with its endpoint. */
export interface BatchDeliveryState extends DeliveryState {
  endpointId: number;
}

/** An endpoint row as a batch record reads it (locked, because an attempt of the batch failed). */
export interface BatchEndpointState extends EndpointState {
  disabledReason: string | null;
}

/** The one write a batch makes to a delivery row: everything its attempts in the batch did. */
export interface DeliveryWrite {
  /** Attempts to add to `attempt_count` (late ones included). */
  attempts: number;
  /** Attempts that moved it on, to add to `round_attempts`. */
  rounds: number;
  /** The last move, when one of the batch's attempts was made under the current lease. */
  finished?: {
    status: DeliveryStatus;
    nextAttemptAt: number;
    lastStatus: number | null;
    lastError: string | null;
    updatedAt: number;
  };
}

/** The one write a batch makes to an endpoint row. */
export type EndpointWrite =
  /** Only successes, on a row not read: end a failing run if there is one (a guarded write). */
  | { kind: "clear" }
  /** The row was read under its lock: its state after every attempt of the batch, in order. */
  | {
      kind: "set";
      status: EndpointStatus;
      disabledReason: string | null;
      failingSince: number | null;
      lastFailureAt: number | null;
    };

export interface BatchDecision {
  /** One per input, in input order; undefined where the delivery no longer exists. */
  decisions: Array<AttemptDecision | undefined>;
  deliveries: Map<number, DeliveryWrite>;
  endpoints: Map<number, EndpointWrite>;
}

/**
 * `decideAttempt` over a batch of attempts recorded in one transaction, as if each were recorded on its
 * own in the order given: each decision sees the rows as the earlier ones left them (two failures of one
 * endpoint continue one failing run; a success before a failure ends it). The store then writes each row
 * once, with set-based statements, instead of a round trip per attempt.
 */
export function decideAttempts(
  reports: readonly AttemptReport[],
  policy: DecisionPolicy,
  deliveries: ReadonlyMap<number, BatchDeliveryState>,
  endpoints: ReadonlyMap<number, BatchEndpointState>,
  now: number,
): BatchDecision {
  const deliveryNow = new Map([...deliveries].map(([id, state]) => [id, { ...state }]));
  const endpointNow = new Map([...endpoints].map(([id, state]) => [id, { ...state }]));
  const deliveryWrites = new Map<number, DeliveryWrite>();
  const endpointWrites = new Map<number, EndpointWrite>();
  const decisions = reports.map((report) => {
    const delivery = deliveryNow.get(report.deliveryId);
    if (!delivery) return undefined;
    const endpoint = endpointNow.get(delivery.endpointId);
    const decision = decideAttempt(report, policy, delivery, endpoint, now);
    const write = deliveryWrites.get(report.deliveryId) ?? { attempts: 0, rounds: 0 };
    write.attempts += 1;
    delivery.attemptCount += 1;
    const change = decision.delivery;
    if (change.kind === "finished") {
      write.rounds += 1;
      const { kind: _kind, ...finished } = change;
      write.finished = finished;
      Object.assign(delivery, {
        status: change.status,
        leaseOwner: null,
        leaseUntil: null,
        roundAttempts: delivery.roundAttempts + 1,
        nextAttemptAt: change.nextAttemptAt,
      });
    }
    deliveryWrites.set(report.deliveryId, write);
    const touched = decision.endpoint;
    if (touched && endpoint) {
      if (touched.kind === "succeeded") endpoint.failingSince = null;
      else {
        endpoint.failingSince = touched.failingSince;
        endpoint.lastFailureAt = touched.lastFailureAt;
        if (touched.disabledReason !== undefined) {
          endpoint.status = "disabled";
          endpoint.disabledReason = touched.disabledReason;
        }
      }
      endpointWrites.set(delivery.endpointId, { kind: "set", ...endpoint });
    } else if (touched?.kind === "succeeded") {
      // Its row was not read (no failure of the batch is on it), so no "set" can be there to keep.
      endpointWrites.set(delivery.endpointId, { kind: "clear" });
    }
    return decision;
  });
  return { decisions, deliveries: deliveryWrites, endpoints: endpointWrites };
}
