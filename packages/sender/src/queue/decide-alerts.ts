import { isOperationalEventType, type OperationalEvent } from "@plant-store/types";
import type { AttemptReport } from "../outbox.js";
import type { AttemptDecision } from "./decide-attempt.js";

/** What an alert says of a delivery, as the record read it. */
export interface AlertDelivery {
  endpointId: number;
  messageId: number;
  webhookId: string;
  eventType: string | null;
}

/** What an alert says of an endpoint, as read under its lock. */
export interface AlertEndpoint {
  url: string;
  subscriberId: number | null;
  failingSince: number | null;
  /** Its last failure before this batch. */
  lastFailureAt: number | null;
}

/** One alert, tied to the report whose attempt caused it. */
export interface DecidedAlert {
  index: number;
  event: OperationalEvent;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The operational events a batch's decisions amount to, in the order they happened: an endpoint's
 * failing run starting (`endpoint.failing`), a failure disabling it (`endpoint.disabled`), a success
 * ending a run (`endpoint.recovered`), and a delivery failing for
 * good (`delivery.failed`). Only the lease holder's attempts count (a late result decides nothing), and a
 * failed delivery of an operational message raises no `delivery.failed`: an alert endpoint that is down
 * would otherwise be sent an alert about each alert, for ever. `endpoints` are the rows the record
 * read under their locks: a success on an endpoint not among them (its run had ended, as last committed)
 * raises nothing.
 *
 * A run is alerted once it has lasted `alertAfterMs` (the first failure that far past its start says
 * `endpoint.failing`), and only an alerted run's end says `endpoint.recovered`: an endpoint failing now
 * and then raises nothing. Whether a stored run was alerted is read from the row, with no column of its
 * own: a failure recorded `alertAfterMs` or more after the run's start, or a run restarted by an enable
 * (its start after its last failure: it was disabled, which is always said).
 */
export function decideAlerts(
  reports: readonly AttemptReport[],
  decisions: ReadonlyArray<AttemptDecision | undefined>,
  deliveries: ReadonlyMap<number, AlertDelivery>,
  endpoints: ReadonlyMap<number, AlertEndpoint>,
  now: number,
  alertAfterMs: number,
): DecidedAlert[] {
  const runs = new Map([...endpoints].map(([id, endpoint]) => [id, endpoint.failingSince]));
  const alerted = new Map(
    [...endpoints].map(([id, { failingSince: start, lastFailureAt: last }]) => [
      id,
      start !== null && (last === null || last < start || last - start >= alertAfterMs),
    ]),
  );
  const alerts: DecidedAlert[] = [];
  // One clock for the whole batch: formatted once, not once per attempt (most of which raise nothing).
  const at = iso(now);
  reports.forEach((report, index) => {
    const decision = decisions[index];
    const delivery = deliveries.get(report.deliveryId);
    if (!decision?.held || !delivery) return;
    const { endpointId } = delivery;
    const endpoint = endpoints.get(endpointId);
    const about = {
      endpointId,
      url: endpoint?.url ?? "",
      subscriberId: endpoint?.subscriberId ?? null,
      at,
    };
    const { status, error } = report.result;
    const change = decision.endpoint;
    const running = runs.get(endpointId) ?? null;
    if (change?.kind === "succeeded") {
      if (running !== null && status !== null && endpoint && alerted.get(endpointId))
        alerts.push({
          index,
          event: { type: "endpoint.recovered", ...about, failingSince: iso(running), lastStatus: status },
        });
      runs.set(endpointId, null);
      alerted.set(endpointId, false);
    } else if (change?.kind === "failed" && endpoint) {
      if (change.failingSince !== running) alerted.set(endpointId, false);
      if (!alerted.get(endpointId) && now - change.failingSince >= alertAfterMs) {
        alerted.set(endpointId, true);
        alerts.push({
          index,
          event: {
            type: "endpoint.failing",
            ...about,
            failingSince: iso(change.failingSince),
            lastStatus: status,
            lastError: error,
          },
        });
      }
      runs.set(endpointId, change.failingSince);
      if (change.disabledReason !== undefined)
        alerts.push({
          index,
          event: {
            type: "endpoint.disabled",
            ...about,
            failingSince: iso(change.failingSince),
            reason: change.disabledReason,
            lastStatus: status,
          },
        });
    }
    const finished = decision.delivery;
    if (
      finished.kind === "finished" &&
      finished.status === "failed" &&
      endpoint &&
      !(delivery.eventType !== null && isOperationalEventType(delivery.eventType))
    )
      alerts.push({
        index,
        event: {
          type: "delivery.failed",
          ...about,
          deliveryId: report.deliveryId,
          messageId: delivery.messageId,
          webhookId: delivery.webhookId,
          eventType: delivery.eventType,
          attempts: decision.attemptNumber,
          lastStatus: status,
          lastError: error,
        },
      });
  });
  return alerts;
}
