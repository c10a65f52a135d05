import type { IncomingHttpHeaders } from "node:http";
import type { EnqueueResult, Outbox } from "@plant-store/sender";
import { z } from "zod";
import { AdminError, invalidInput } from "../admin-error.js";
import { IdempotencyKeySchema } from "../admin-inputs.js";
import { BODY, parseInput } from "../parse-input.js";
import { readJsonBody } from "../read-json-body.js";
import type { RouteTable } from "./route-table.js";

/**
 * `POST /messages`: any message of the outbox's event types, as a service embedding the API sends it.
 * The event type follows the sender's rule (the queue's `EVENT_TYPE_PATTERN`); the payload is a JSON
 * object, checked against the event type's schema by an outbox that has a catalog (the store's has).
 */
const SendMessageInputSchema = z.strictObject({
  eventType: z
    .string()
    .regex(
      /^[A-Za-z0-9_.:/-]{1,200}$/,
      "must be 1 to 200 letters, digits or _ . : / - (an operationId, say)",
    ),
  payload: z.record(z.string(), z.unknown(), { error: "must be a JSON object" }),
  idempotencyKey: IdempotencyKeySchema.optional(),
  orderingKey: IdempotencyKeySchema.optional(),
});

/** The queue's refusals of a message as given: the caller's input to fix, a 400 with the queue's words. */
const REFUSED_MESSAGE = new Set(["ERR_INVALID_MESSAGE", "ERR_INVALID_PAYLOAD"]);

/** A message's deliveries at most, for answering a replay (one per endpoint, which are capped well below). */
const MAX_DELIVERIES_READ = 100_000;

/**
 * A key given as a header (`Idempotency-Key`, `Ordering-Key`, as `POST /plants` takes them) and in the
 * body: either, or both when they agree. Node strips the spaces around a header's value, so a header of
 * spaces only arrives as "": a key sent (and refused), not the same as no header at all.
 */
function keyOf(
  headers: IncomingHttpHeaders,
  header: "idempotency-key" | "ordering-key",
  inBody: string | undefined,
): string | undefined {
  const name = header === "idempotency-key" ? "Idempotency-Key" : "Ordering-Key";
  const field = header === "idempotency-key" ? "idempotencyKey" : "orderingKey";
  const value = headers[header];
  if (value === "")
    throw invalidInput(`Invalid ${name} header: must not be empty or only spaces; send no header for no key`);
  const fromHeader =
    value === undefined ? undefined : parseInput(IdempotencyKeySchema, value, `${name} header`);
  if (fromHeader !== undefined && inBody !== undefined && fromHeader !== inBody)
    throw invalidInput(
      `Invalid message: the ${name} header and ${field} differ; send one, or the same in both`,
    );
  return fromHeader ?? inBody;
}

const conflict = () =>
  new AdminError(
    409,
    "ERR_IDEMPOTENCY_CONFLICT",
    "This idempotency key was already used with another message (event type, payload or ordering key); nothing was queued",
  );

/** Messages: queued by the operator (a service's own code), one delivery per subscribed endpoint. */
export function messageRoutes(options: { outbox: Outbox; wake: () => void }): RouteTable {
  const { outbox, wake } = options;
  return [
    // With an idempotency key, a client retrying after a timeout gets the first answer again (same
    // message, nothing queued twice); the same key with another message is a 409.
    {
      method: "POST",
      path: "/messages",
      access: "operator",
      handler: async (ctx) => {
        const input = parseInput(SendMessageInputSchema, await readJsonBody(ctx.req), "message", BODY);
        const idempotencyKey = keyOf(ctx.req.headers, "idempotency-key", input.idempotencyKey);
        const orderingKey = keyOf(ctx.req.headers, "ordering-key", input.orderingKey);
        let queued: EnqueueResult;
        try {
          queued = await outbox.enqueue({
            eventType: input.eventType,
            payload: input.payload,
            ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
            ...(orderingKey === undefined ? {} : { orderingKey }),
          });
        } catch (error) {
          const code = (error as { code?: unknown } | undefined)?.code;
          if (typeof code === "string" && REFUSED_MESSAGE.has(code) && error instanceof Error)
            throw invalidInput(error.message);
          if (code === "ERR_IDEMPOTENCY_CONFLICT") throw conflict();
          throw error;
        }
        let answer = { orderingKey: orderingKey ?? null, queued: queued.deliveries };
        if (queued.duplicate) {
          // The queue compares the payload (and addressee) only; the event type and the ordering key are
          // part of the message too, read back from the first message and its deliveries. `queued` is
          // what the first message has now: its deliveries, one per endpoint it went to.
          const first = await outbox.getMessage(queued.messageId);
          const deliveries = await outbox.listDeliveries({
            messageId: queued.messageId,
            limit: MAX_DELIVERIES_READ,
          });
          const firstOrderingKey = deliveries[0]?.orderingKey;
          if (
            first?.eventType !== input.eventType ||
            (firstOrderingKey !== undefined && firstOrderingKey !== (orderingKey ?? null))
          )
            throw conflict();
          answer = { orderingKey: firstOrderingKey ?? orderingKey ?? null, queued: deliveries.length };
          ctx.set("Idempotency-Replayed", "true");
        } else wake();
        ctx.status = 202;
        ctx.body = {
          message: {
            webhookId: queued.webhookId,
            eventType: input.eventType,
            orderingKey: answer.orderingKey,
          },
          queued: answer.queued,
        };
      },
    },
  ];
}
