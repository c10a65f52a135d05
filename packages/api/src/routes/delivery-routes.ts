import { EndpointNotFoundError, type Outbox } from "@plant-store/sender";
import { scopeOf } from "../access/principal-of.js";
import type { RouteTable } from "../access/route-table.js";
import { notFound } from "../errors.js";
import { type EndpointInputs, IdSchema, ReplayInputSchema } from "../inputs/api-inputs.js";
import { BODY, parseInput } from "../inputs/parse-input.js";
import { readJsonBody } from "../inputs/read-json-body.js";
import { presentAttempt, presentDelivery } from "../present.js";

/** Deliveries and their attempts, a retry of one, and a replay of an endpoint's, in the caller's scope. */
export function deliveryRoutes(options: {
  outbox: Outbox;
  wake: () => void;
  inputs: EndpointInputs;
}): RouteTable {
  const { outbox, wake, inputs } = options;
  return [
    {
      method: "GET",
      path: "/deliveries",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const query = parseInput(inputs.ListDeliveriesQuerySchema, ctx.query, "query", "(query)");
        const deliveries = await outbox.listDeliveries({
          limit: query.limit,
          ...(query.status ? { status: query.status } : {}),
          ...(query.eventType ? { eventType: query.eventType } : {}),
          ...(query.endpointId ? { endpointId: query.endpointId } : {}),
          ...scopeOf(ctx),
        });
        ctx.body = { deliveries: deliveries.map(presentDelivery) };
      },
    },
    {
      method: "GET",
      path: "/deliveries/:id",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const id = parseInput(IdSchema, ctx.params.id, "id");
        const scope = scopeOf(ctx);
        const delivery = await outbox.getDelivery(id, scope);
        if (!delivery) throw notFound("Delivery");
        ctx.body = {
          delivery: presentDelivery(delivery),
          attempts: (await outbox.listAttempts(id, scope)).map(presentAttempt),
        };
      },
    },
    {
      method: "POST",
      path: "/deliveries/:id/retry",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const delivery = await outbox.retryDelivery(parseInput(IdSchema, ctx.params.id, "id"), scopeOf(ctx));
        if (!delivery) throw notFound("Delivery");
        wake();
        ctx.body = { delivery: presentDelivery(delivery) };
      },
    },
    {
      method: "POST",
      path: "/replay",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const input = parseInput(ReplayInputSchema, await readJsonBody(ctx.req), "replay", BODY);
        try {
          const queued = await outbox.replay(input.endpointId, new Date(input.since), scopeOf(ctx));
          wake();
          ctx.body = { queued };
        } catch (error) {
          if (error instanceof EndpointNotFoundError) throw notFound("Endpoint");
          throw error;
        }
      },
    },
  ];
}
