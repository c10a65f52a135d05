import type { IncomingMessage } from "node:http";
import type { Outbox } from "@plant-store/sender";
import type { RouteTable } from "../access/route-table.js";
import { invalidInput } from "../errors.js";
import { IdempotencyKeySchema, SendMessageInputSchema } from "../inputs/api-inputs.js";
import { BODY, parseInput } from "../inputs/parse-input.js";
import { readJsonBody } from "../inputs/read-json-body.js";

/**
 * A key given as a header (`Idempotency-Key`, `Ordering-Key`) or in the body; both may be given only
 * when they agree. Node strips the spaces around a header's value: a key of spaces only arrives as "",
 * which is a key sent (and refused), not the same as no header at all.
 */
function keyOf(req: IncomingMessage, header: string, inBody: string | undefined): string | undefined {
  const raw = req.headers[header.toLowerCase()];
  if (raw === undefined) return inBody;
  if (raw === "" || Array.isArray(raw))
    throw invalidInput(`Invalid ${header} header: must be one non-empty key; send no header for no key`);
  const key = parseInput(IdempotencyKeySchema, raw, `${header} header`);
  if (inBody !== undefined && inBody !== key)
    throw invalidInput(`${header} header and the body's key differ: give one, or the same in both`);
  return key;
}

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
        const idempotencyKey = keyOf(ctx.req, "Idempotency-Key", input.idempotencyKey);
        const orderingKey = keyOf(ctx.req, "Ordering-Key", input.orderingKey);
        const result = await outbox.enqueue({
          eventType: input.eventType,
          payload: input.payload,
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
          ...(orderingKey === undefined ? {} : { orderingKey }),
          ...(input.subscriberId === undefined ? {} : { subscriberId: input.subscriberId }),
        });
        if (result.duplicate) ctx.set("Idempotency-Replayed", "true");
        else wake();
        ctx.status = 202;
        ctx.body = {
          message: {
            id: result.messageId,
            webhookId: result.webhookId,
            eventType: input.eventType,
            orderingKey: orderingKey ?? null,
          },
          /** Deliveries this call queued: 0 for a replayed key. */
          queued: result.deliveries,
        };
      },
    },
  ];
}
