import type { AttemptRecord, DeliveryRecord, Endpoint, PlantRecord } from "@plant-store/sender";

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** A plant as the admin API and `--json` show it. */
export function presentPlant(plant: PlantRecord) {
  return {
    id: plant.id,
    name: plant.name,
    ...(plant.tag === undefined ? {} : { tag: plant.tag }),
    webhookId: plant.webhookId,
    createdAt: iso(plant.createdAt),
  };
}

/** An endpoint without its token and secrets, which are never shown again after they are set. */
export function presentEndpoint(endpoint: Endpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    status: endpoint.status,
    disabledReason: endpoint.disabledReason,
    failingSince: iso(endpoint.failingSince),
    secretCount: endpoint.secrets.length,
    createdAt: iso(endpoint.createdAt),
  };
}

export function presentDelivery(delivery: DeliveryRecord) {
  return {
    id: delivery.id,
    plantId: delivery.plantId,
    endpointId: delivery.endpointId,
    webhookId: delivery.webhookId,
    status: delivery.status,
    attempts: delivery.attemptCount,
    nextAttemptAt: iso(delivery.nextAttemptAt),
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    createdAt: iso(delivery.createdAt),
    updatedAt: iso(delivery.updatedAt),
  };
}

export function presentAttempt(attempt: AttemptRecord) {
  return {
    attempt: attempt.attempt,
    startedAt: iso(attempt.startedAt),
    durationMs: attempt.durationMs,
    status: attempt.status,
    error: attempt.error,
    outcome: attempt.outcome,
    responseBody: attempt.responseBody,
    workerId: attempt.workerId,
  };
}
