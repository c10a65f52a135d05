import type { IncomingHttpHeaders } from "node:http";
import type { EnqueueResult, Outbox } from "@plant-store/sender";
import type { RouteTable } from "../access/route-table.js";
import { invalidInput, WebhookApiError } from "../errors.js";
import { IdempotencyKeySchema, SendMessageInputSchema } from "../inputs/api-inputs.js";
import { BODY, parseInput } from "../inputs/parse-input.js";
import { readJsonBody } from "../inputs/read-json-body.js";

/**
 * A key given as a header (`Idempotency-Key`, `Ordering-Key`) and in the body (`undefined` for a route
 * that takes it as a header only): either, or both when they agree. Node strips the spaces around a header's value, so a header of spaces only arrives as "": a key
 * sent (and refused), not the same as no header at all.
 */
export function requestKey(
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

/** A message's deliveries at most, for answering a replay (one per endpoint, which are capped well below). */
const MAX_DELIVERIES_READ = 100_000;

const conflict = () =>
  new WebhookApiError(
    409,
    "ERR_IDEMPOTENCY_CONFLICT",
    "This idempotency key was already used with another message (event type, payload or ordering key); nothing was queued",
  );

/**
 * `POST /messages`: the operator's way to send a message to every endpoint subscribed to its event type
 * (or one subscriber's, with `subscriberId`). With an idempotency key, a client retrying after a timeout
 * gets the first message back (`Idempotency-Replayed: true`, nothing queued again); the same key with
 * another payload is a 409.
 */
export function messageRoutes(options: { outbox: Outbox; wake: () => void }): RouteTable {
  const { outbox, wake } = options;
  return [
    {
      method: "POST",
      path: "/messages",
      access: "operator",
      handler: async (ctx) => {
        const input = parseInput(SendMessageInputSchema, await readJsonBody(ctx.req), "message", BODY);
        const idempotencyKey = requestKey(ctx.req.headers, "idempotency-key", input.idempotencyKey);
        const orderingKey = requestKey(ctx.req.headers, "ordering-key", input.orderingKey);
        let result: EnqueueResult;
        try {
          result = await outbox.enqueue({
            eventType: input.eventType,
            payload: input.payload,
            ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
            ...(orderingKey === undefined ? {} : { orderingKey }),
            ...(input.subscriberId === undefined ? {} : { subscriberId: input.subscriberId }),
          });
        } catch (error) {
          if ((error as { code?: unknown } | undefined)?.code === "ERR_IDEMPOTENCY_CONFLICT")
            throw conflict();
          throw error;
        }
        let queued = result.deliveries;
        let shownOrderingKey = orderingKey ?? null;
        if (result.duplicate) {
          // The queue compares the payload and the addressee; the event type and the ordering key are the
          // message's too, read back from the first message and its deliveries. `queued` is then what the
          // first message has: its deliveries, one per endpoint it went to.
          const first = await outbox.getMessage(result.messageId);
          const deliveries = await outbox.listDeliveries({
            messageId: result.messageId,
            limit: MAX_DELIVERIES_READ,
          });
          const firstOrderingKey = deliveries[0]?.orderingKey;
          if (
            first?.eventType !== input.eventType ||
            (firstOrderingKey !== undefined && firstOrderingKey !== shownOrderingKey)
          )
            throw conflict();
          queued = deliveries.length;
          shownOrderingKey = firstOrderingKey ?? shownOrderingKey;
          ctx.set("Idempotency-Replayed", "true");
        } else wake();
        ctx.status = 202;
        ctx.body = {
          message: {
            webhookId: result.webhookId,
            eventType: input.eventType,
            orderingKey: shownOrderingKey,
          },
          /** The message's deliveries: the ones this call queued, or the first call's for a replayed key. */
          queued,
        };
      },
    },
  ];
}
