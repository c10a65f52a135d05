// The one place the bench adds work to a @plant-store/sender outbox.

/** What the bench needs of an outbox to queue one plant. */
export interface PlantQueue {
  enqueue(message: { payload: unknown; orderingKey?: string }): Promise<unknown>;
}

/** Queues plant number `index` (one delivery per subscribed endpoint): the New Plant payload the store would queue. */
export async function enqueuePlant(outbox: PlantQueue, index: number, orderingKey?: string): Promise<void> {
  await outbox.enqueue({
    payload: { id: index + 1, name: `bench plant ${index}`, tag: "bench" },
    ...(orderingKey === undefined ? {} : { orderingKey }),
  });
}
