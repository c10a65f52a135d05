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
 */
export function decideAlerts(
  reports: readonly AttemptReport[],
  decisions: ReadonlyArray<AttemptDecision | undefined>,
  deliveries: ReadonlyMap<number, AlertDelivery>,
  endpoints: ReadonlyMap<number, AlertEndpoint>,
  now: number,
): DecidedAlert[] {
  const runs = new Map([...endpoints].map(([id, endpoint]) => [id, endpoint.failingSince]));
  const alerts: DecidedAlert[] = [];
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
      at: iso(now),
    };
    const { status, error } = report.result;
    const change = decision.endpoint;
    const running = runs.get(endpointId) ?? null;
    if (change?.kind === "succeeded") {
      if (running !== null && status !== null && endpoint)
        alerts.push({
          index,
          event: { type: "endpoint.recovered", ...about, failingSince: iso(running), lastStatus: status },
        });
      runs.set(endpointId, null);
    } else if (change?.kind === "failed" && endpoint) {
      if (change.failingSince !== running)
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
