import { readAppEvent } from "@plant-store/app-shell";
import type { AppLogLine } from "./spawn-app.js";

/** What the demo knows about one plant, from the admin API and both apps' log lines. */
export interface LedgerEntry {
  /** The plant's id: from the admin API's answer or the receiver's line (the store's lines name the webhook id). */
  id?: number;
  /** Set once the admin API answered (or, in a kept demo, once the store queued it); lines can come first. */
  added: boolean;
  name: string;
  tag?: string;
  addedAt: number;
  /** When the store queued it (from its log), for plants the demo did not add itself. */
  queuedAt?: number;
  webhookId: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  lastDurationMs: number;
  /** The store logged an attempt that the receiver acknowledged. */
  delivered: boolean;
  /** Rows the receiver app stored for this plant (`plant.stored` events). */
  stored: number;
  /** When the receiver stored it. */
  receivedAt?: number;
  reported: boolean;
}

/** The plant one of the store's attempt lines was about, and the outcome unless it was delivered. */
export interface AttemptSeen {
  plant: LedgerEntry;
  /** `retrying`, `failed`…; absent when the attempt delivered the plant. */
  notDelivered?: string;
}

export interface ExactlyOnceVerdict {
  /** Plants whose handler ran exactly once and that were stored exactly once. */
  arrived: number;
  /** Handler calls beyond the first, over every webhook id the receiver saw. */
  duplicates: number;
  ok: boolean;
}

export interface DeliveryLedger {
  /** Every plant, by the webhook id of its New Plant event (the one key both apps' lines carry). */
  readonly plants: ReadonlyMap<string, LedgerEntry>;
  /** The plant of a webhook id, created empty on first mention; `id` when the caller knows it. */
  plant(webhookId: string, id?: number): LedgerEntry;
  /** Feeds one of the store's log lines; returns what it said when it was about a delivery attempt. */
  storeLine(line: AppLogLine): AttemptSeen | undefined;
  /** Feeds one of the receiver's log lines; returns the plant it was about, when known. */
  receiverLine(line: AppLogLine): LedgerEntry | undefined;
  /** How many times the receiver's handler ran for a webhook id (its successful, non-duplicate answers). */
  handlerCalls(webhookId: string | undefined): number;
  /** Both sides have spoken: the store logged the delivered attempt and the receiver ran the handler and stored it. */
  isComplete(plant: LedgerEntry): boolean;
  /**
   * Every plant added arrived exactly once: one handler call for its webhook id, one stored row, no
   * webhook id handled twice, and (when given) the receiver's own count of handler calls from its
   * metrics agrees with the number of plants.
   */
  verdict(handledByReceiverMetrics?: number): ExactlyOnceVerdict;
}

/**
 * Bookkeeping for the demo's "exactly once", from the apps' events (never their message text). The
 * receiver app stores plants with one row per webhook id, so a second handler call would never show
 * in its stored plants; what the demo counts instead is the receiver's `webhook.handled` event with
 * outcome `received`, written once for each request whose handler ran to completion.
 */
export function createDeliveryLedger(): DeliveryLedger {
  const plants = new Map<string, LedgerEntry>();
  const handled = new Map<string, number>();

  const plant = (webhookId: string, id?: number): LedgerEntry => {
    let record = plants.get(webhookId);
    if (!record) {
      record = {
        webhookId,
        added: false,
        name: "",
        addedAt: 0,
        attempts: 0,
        lastStatus: null,
        lastError: null,
        lastDurationMs: 0,
        delivered: false,
        stored: 0,
        reported: false,
      };
      plants.set(webhookId, record);
    }
    if (id !== undefined) record.id = id;
    return record;
  };
  const handlerCalls = (webhookId: string | undefined) =>
    webhookId === undefined ? 0 : (handled.get(webhookId) ?? 0);

  return {
    plants,
    plant,
    handlerCalls,
    storeLine(line) {
      const event = readAppEvent(line);
      if (event?.event !== "delivery.attempted") return undefined;
      const record = plant(event.webhookId);
      record.queuedAt = Date.parse(event.queuedAt);
      record.attempts = event.attempt;
      record.lastStatus = event.status;
      record.lastError = event.error;
      record.lastDurationMs = Math.round(event.durationMs);
      if (event.outcome === "delivered") {
        record.delivered = true;
        return { plant: record };
      }
      return { plant: record, notDelivered: event.outcome };
    },
    receiverLine(line) {
      const event = readAppEvent(line);
      if (event?.event === "webhook.handled") {
        if (event.outcome !== "received" || event.webhookId === undefined) return undefined;
        handled.set(event.webhookId, (handled.get(event.webhookId) ?? 0) + 1);
        return plants.get(event.webhookId);
      }
      if (event?.event !== "plant.stored") return undefined;
      const record = plant(event.webhookId, event.plantId);
      record.stored += 1;
      record.receivedAt = event.time ?? Date.now();
      if (!record.name) record.name = event.name;
      return record;
    },
    isComplete(record) {
      return record.delivered && record.stored > 0 && handlerCalls(record.webhookId) > 0;
    },
    verdict(handledByReceiverMetrics) {
      let arrived = 0;
      for (const record of plants.values()) {
        if (record.stored === 1 && handlerCalls(record.webhookId) === 1) arrived += 1;
      }
      const duplicates = [...handled.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
      const metricsAgree = handledByReceiverMetrics === undefined || handledByReceiverMetrics === plants.size;
      return { arrived, duplicates, ok: arrived === plants.size && duplicates === 0 && metricsAgree };
    },
  };
}
