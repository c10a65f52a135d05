import type { PlantWebhookOutcome } from "@plant-store/receiver";
import type { Context, Next } from "koa";
import type { Counter } from "prom-client";

/** One webhook request the receiver verified far enough to know its `webhook-id`. */
export interface DeliveryEntry {
  webhookId: string;
  /** From the sender's `webhook-attempt` header when it sends one; else how many times this receiver saw the id. */
  attempt: number;
  attemptSource: "header" | "seen";
  outcome: PlantWebhookOutcome["outcome"];
  duplicate: boolean;
  status: number;
  /** Time from the request's arrival to its answer, in milliseconds. */
  handledMs: number;
  handledAt: string;
}

export interface DeliveryLogSnapshot {
  /** Newest first. */
  deliveries: DeliveryEntry[];
  /** Webhook requests answered with 4xx or 5xx since start, by status code. */
  refused: Record<string, number>;
}

export interface DeliveryLog {
  /** Koa middleware: put it before the webhook router, so it sees each request's final status. */
  middleware(ctx: Context, next: Next): Promise<void>;
  snapshot(): Promise<DeliveryLogSnapshot>;
}

export interface DeliveryLogOptions {
  /** The receiver's request counter (`outcome`, `status`): the refused counts are read from it, so the page and `/metrics` agree. */
  requests: Counter<"outcome" | "status">;
  /** Entries kept for the page. Default 100. */
  maxEntries?: number;
  /** Webhook ids whose sightings are counted (oldest forgotten first). Default 10 000. */
  maxTrackedIds?: number;
}

const ATTEMPT_HEADER = /^[1-9]\d{0,5}$/;

/**
 * Recent deliveries for the live page, in memory only (a restart starts the list over; the plants
 * themselves are in storage). Bounded: the last `maxEntries` requests, and sightings of at most
 * `maxTrackedIds` webhook ids, so a flood of distinct ids costs a fixed amount of memory.
 */
export function createDeliveryLog(options: DeliveryLogOptions): DeliveryLog {
  const maxEntries = options.maxEntries ?? 100;
  const maxTrackedIds = options.maxTrackedIds ?? 10_000;
  const entries: DeliveryEntry[] = [];
  const seen = new Map<string, number>();

  const sighting = (webhookId: string) => {
    const count = (seen.get(webhookId) ?? 0) + 1;
    // Re-inserted at the end: the Map's order is then least recently seen first.
    seen.delete(webhookId);
    seen.set(webhookId, count);
    if (seen.size > maxTrackedIds) seen.delete(seen.keys().next().value as string);
    return count;
  };

  return {
    async middleware(ctx, next) {
      const started = performance.now();
      try {
        await next();
      } finally {
        const state = ctx.state.plantWebhook as PlantWebhookOutcome | undefined;
        if (state?.webhookId !== undefined) {
          const header = ctx.get("webhook-attempt");
          const seenCount = sighting(state.webhookId);
          entries.unshift({
            webhookId: state.webhookId,
            attempt: ATTEMPT_HEADER.test(header) ? Number(header) : seenCount,
            attemptSource: ATTEMPT_HEADER.test(header) ? "header" : "seen",
            outcome: state.outcome,
            duplicate: state.outcome === "duplicate",
            status: ctx.status,
            handledMs: Math.round((performance.now() - started) * 100) / 100,
            handledAt: new Date().toISOString(),
          });
          if (entries.length > maxEntries) entries.length = maxEntries;
        }
      }
    },
    async snapshot() {
      const refused: Record<string, number> = {};
      for (const { labels, value } of (await options.requests.get()).values) {
        const status = String(labels.status ?? "");
        if (Number(status) >= 400) refused[status] = (refused[status] ?? 0) + value;
      }
      return { deliveries: entries.slice(), refused };
    },
  };
}
