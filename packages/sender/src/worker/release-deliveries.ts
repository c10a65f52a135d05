import type { ClaimedDelivery, Outbox } from "../outbox.js";

/**
 * Gives claimed deliveries back unattempted, due at once, in one statement. A release that fails is left
 * to the lease, which runs out and lets any worker take the deliveries: late, never lost.
 */
export async function releaseDeliveries(
  outbox: Pick<Outbox, "release">,
  workerId: string,
  deliveries: readonly ClaimedDelivery[],
): Promise<void> {
  if (deliveries.length === 0) return;
  await outbox
    .release(
      deliveries.map((delivery) => delivery.id),
      workerId,
    )
    .catch(() => undefined);
}
