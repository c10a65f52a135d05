import type { AppLogLine } from "./spawn-app.js";

/** What the demo knows about one plant, from the admin API and both apps' log lines. */
export interface PlantRecord {
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
  /** Rows the receiver app stored for this plant ("plant received"). */
  stored: number;
  /** When the receiver stored it. */
  receivedAt?: number;
  reported: boolean;
}

/** The plant one of the store's attempt lines was about, and the outcome unless it was delivered. */
export interface AttemptSeen {
  plant: PlantRecord;
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
  readonly plants: ReadonlyMap<string, PlantRecord>;
  /** The plant of a webhook id, created empty on first mention; `id` when the caller knows it. */
  plant(webhookId: string, id?: number): PlantRecord;
  /** Feeds one of the store's log lines; returns what it said when it was about a delivery attempt. */
  storeLine(line: AppLogLine): AttemptSeen | undefined;
  /** Feeds one of the receiver's log lines; returns the plant it was about, when known. */
  receiverLine(line: AppLogLine): PlantRecord | undefined;
  /** How many times the receiver's handler ran for a webhook id (its successful, non-duplicate answers). */
  handlerCalls(webhookId: string | undefined): number;
  /** Both sides have spoken: the store logged the delivered attempt and the receiver ran the handler and stored it. */
  isComplete(plant: PlantRecord): boolean;
  /**
   * Every plant added arrived exactly once: one handler call for its webhook id, one stored row, no
   * webhook id handled twice, and (when given) the receiver's own count of handler calls from its
   * metrics agrees with the number of plants.
   */
  verdict(handledByReceiverMetrics?: number): ExactlyOnceVerdict;
}

/**
 * Bookkeeping for the demo's "exactly once". The receiver app stores plants with one row per webhook
 * id, so a second handler call would never show in its stored plants; what the demo counts instead
 * is the receiver library's per-request debug line ("plant webhook received", `duplicate: false`),
 * written once for each request whose handler ran to completion, keyed by webhook id.
 */
export function createDeliveryLedger(): DeliveryLedger {
  const plants = new Map<string, PlantRecord>();
  const handled = new Map<string, number>();

  const plant = (webhookId: string, id?: number): PlantRecord => {
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
      if (line.msg !== "delivery attempt" || typeof line.webhookId !== "string") return undefined;
      const record = plant(line.webhookId);
      if (typeof line.queuedAt === "string") record.queuedAt = Date.parse(line.queuedAt);
      record.attempts = typeof line.attempt === "number" ? line.attempt : record.attempts + 1;
      record.lastStatus = typeof line.status === "number" ? line.status : null;
      record.lastError = typeof line.error === "string" ? line.error : null;
      record.lastDurationMs = typeof line.durationMs === "number" ? Math.round(line.durationMs) : 0;
      if (line.outcome === "delivered") {
        record.delivered = true;
        return { plant: record };
      }
      return { plant: record, notDelivered: String(line.outcome) };
    },
    receiverLine(line) {
      if (line.msg === "plant webhook received" && line.duplicate === false) {
        if (typeof line.webhookId !== "string") return undefined;
        handled.set(line.webhookId, (handled.get(line.webhookId) ?? 0) + 1);
        return plants.get(line.webhookId);
      }
      if (line.msg !== "plant received" || typeof line.webhookId !== "string") return undefined;
      const record = plant(line.webhookId, typeof line.plantId === "number" ? line.plantId : undefined);
      record.stored += 1;
      record.receivedAt = typeof line.time === "number" ? line.time : Date.now();
      if (!record.name && typeof line.name === "string") record.name = line.name;
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
