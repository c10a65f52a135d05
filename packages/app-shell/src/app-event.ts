import { z } from "zod";

/**
 * What the apps report on their JSON log stream under a stable `event` field, for programs that
 * follow them (the demo, e2e tests, benchmarks): they read these fields, never the message text,
 * which is for people and may be reworded.
 */
const DeliveryAttemptedSchema = z.object({
  event: z.literal("delivery.attempted"),
  deliveryId: z.number(),
  webhookId: z.string(),
  messageId: z.number(),
  endpointId: z.number(),
  /** 1-based over the delivery's life. */
  attempt: z.number(),
  status: z.number().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
  outcome: z.enum(["delivered", "retrying", "failed", "disabled"]),
  /** ISO time the delivery was queued. */
  queuedAt: z.string(),
  nextAttemptAt: z.string().optional(),
  /** False when the attempt could not be recorded: it is made again once its lease ends (`nextAttemptAt`). */
  recorded: z.literal(false).optional(),
  /** The worker that made the attempt. */
  workerId: z.string().optional(),
});

/**
 * An operational event the worker recorded (an endpoint failing, disabled or recovered, a delivery failed
 * for good), also queued as an operational webhook: `type` and the webhook's payload fields.
 */
const AlertRaisedSchema = z.looseObject({
  event: z.literal("alert.raised"),
  type: z.enum(["endpoint.failing", "endpoint.disabled", "endpoint.recovered", "delivery.failed"]),
  endpointId: z.number(),
  subscriberId: z.number().nullable(),
  /** ISO time on the store's clock. */
  at: z.string(),
  workerId: z.string().optional(),
});

const WebhookHandledSchema = z.object({
  event: z.literal("webhook.handled"),
  /**
   * `received`: the handler ran to completion for a webhook id not seen before. `verification`: the
   * store's verification request, answered with its challenge (no handler ran).
   */
  outcome: z.enum(["received", "duplicate", "rejected", "failed", "verification"]),
  status: z.number(),
  webhookId: z.string().optional(),
  code: z.string().optional(),
});

const PlantStoredSchema = z.object({
  event: z.literal("plant.stored"),
  plantId: z.number(),
  webhookId: z.string(),
  name: z.string(),
  tag: z.string().optional(),
  /** The trace id of the delivery's W3C `traceparent`, when it carried a valid one. */
  traceId: z.string().optional(),
});

/** The receiver's catch-up pulled one event from the store's events API: what became of it. */
const CatchUpEventSchema = z.object({
  event: z.literal("catch-up.event"),
  /** `refused`: it failed verification (or its payload its schema): skipped, never handled. */
  outcome: z.enum(["received", "duplicate", "refused"]),
  webhookId: z.string(),
  code: z.string().optional(),
});

const AppEventSchema = z.discriminatedUnion("event", [
  DeliveryAttemptedSchema,
  AlertRaisedSchema,
  WebhookHandledSchema,
  PlantStoredSchema,
  CatchUpEventSchema,
]);

/** The store finished one delivery attempt (what the worker's `onAttempt` carries). */
export type DeliveryAttempted = z.infer<typeof DeliveryAttemptedSchema>;
/** The worker recorded an alert (see `AlertRaisedSchema`). */
export type AlertRaised = z.infer<typeof AlertRaisedSchema>;
/** The receiver answered one webhook request (what `ctx.state.plantWebhook` carries, and the status). */
export type WebhookHandled = z.infer<typeof WebhookHandledSchema>;
/** The receiver stored a plant it had not stored before. */
export type PlantStored = z.infer<typeof PlantStoredSchema>;
/** The receiver's catch-up pulled one event (see `CatchUpEventSchema`). */
export type CatchUpEventLogged = z.infer<typeof CatchUpEventSchema>;
export type AppEvent = z.infer<typeof AppEventSchema>;

/**
 * The event a parsed log line carries, with the log line's `time` (ms), or undefined for a line that
 * is not an event. A line with an `event` field whose fields do not fit is not an event either.
 */
export function readAppEvent(line: unknown): (AppEvent & { time?: number }) | undefined {
  if (line === null || typeof line !== "object" || !("event" in line)) return undefined;
  const result = AppEventSchema.safeParse(line);
  if (!result.success) return undefined;
  const time = (line as { time?: unknown }).time;
  return typeof time === "number" ? { ...result.data, time } : result.data;
}
