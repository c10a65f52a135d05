// The one place the bench adds work to a @plant-store/sender outbox. The outbox's enqueue call is
// changing (`addPlant({ name, tag })` today, `enqueue({ payload })` next): change it here only.

/** What the bench needs of an outbox to queue one plant. */
export interface PlantQueue {
  addPlant(input: { name: string; tag?: string }): Promise<unknown>;
}

/** Queues plant number `index` (one delivery per subscribed endpoint). */
export async function enqueuePlant(outbox: PlantQueue, index: number): Promise<void> {
  await outbox.addPlant({ name: `bench plant ${index}`, tag: "bench" });
}
