import type { ClaimedDelivery, Outbox } from "./outbox.js";

/**
 * Gives claimed deliveries back unattempted, due at once. A release that fails is left to the lease,
 * which runs out and lets any worker take the delivery: late, never lost.
 */
export async function releaseDeliveries(
  outbox: Pick<Outbox, "release">,
  workerId: string,
  deliveries: readonly ClaimedDelivery[],
): Promise<void> {
  await Promise.all(
    deliveries.map((delivery) => outbox.release(delivery.id, workerId).catch(() => undefined)),
  );
}
