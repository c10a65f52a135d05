import type { BenchCredentials } from "./bench-credentials.js";
import { enqueuePlant } from "./enqueue-plant.js";
import type { BenchOutbox, SenderApi } from "./sender-api.js";

/**
 * Fills an outbox as the store would while no worker can deliver: `endpoints` subscriptions (all
 * pointing at `receiverUrl`, told apart by a query string) and `plants` plants, each queuing one
 * delivery per endpoint. The plants' names carry nothing the bench relies on.
 */
export async function populateOutbox(input: {
  sender: SenderApi;
  target: string;
  receiverUrl: string;
  credentials: BenchCredentials;
  endpoints: number;
  plants: number;
  /** Plants added at once (PostgreSQL: one pool connection each). Default 1. */
  concurrency?: number;
  /** Every plant keyed, round robin over this many ordering keys. Default: none keyed. */
  orderingKeys?: number;
  /** Each endpoint's rate limit (deliveries a second). Default: none. */
  rateLimit?: number;
}): Promise<void> {
  const { sender, target } = input;
  const outbox: BenchOutbox = target.startsWith("postgres")
    ? await sender.createPostgresOutbox(target)
    : sender.createSqliteOutbox(target);
  try {
    for (let i = 0; i < input.endpoints; i++) {
      await outbox.addEndpoint({
        url: `${input.receiverUrl}?endpoint=${i}`,
        token: input.credentials.token,
        secrets: [input.credentials.secret],
        ...(input.rateLimit === undefined ? {} : { rateLimit: input.rateLimit }),
      });
    }
    let next = 0;
    const lane = async () => {
      while (next < input.plants) {
        const index = next++;
        const keys = input.orderingKeys;
        await enqueuePlant(outbox, index, keys === undefined ? undefined : `key-${index % keys}`);
      }
    };
    await Promise.all(Array.from({ length: input.concurrency ?? 1 }, lane));
  } finally {
    await outbox.close();
  }
}
