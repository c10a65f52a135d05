import { EndpointNotFoundError, type Outbox } from "@plant-store/sender";
import { notFound } from "../admin-error.js";
import { IdSchema, ListDeliveriesQuerySchema, ReplayInputSchema } from "../admin-inputs.js";
import { BODY, parseInput } from "../parse-input.js";
import type { PlantCatalog } from "../plant-catalog.js";
import { presentAttempt, presentDeliveries } from "../present.js";
import { scopeOf } from "../principal.js";
import { readJsonBody } from "../read-json-body.js";
import type { RouteTable } from "./route-table.js";

/** Deliveries and their attempts, a retry of one, and a replay of an endpoint's, in the caller's scope. */
export function deliveryRoutes(options: {
  outbox: Outbox;
  plants: PlantCatalog;
  wake: () => void;
}): RouteTable {
  const { outbox, plants, wake } = options;
  return [
    {
      method: "GET",
      path: "/deliveries",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const query = parseInput(ListDeliveriesQuerySchema, ctx.query, "query", "(query)");
        const deliveries = await outbox.listDeliveries({
          limit: query.limit,
          ...(query.status ? { status: query.status } : {}),
          ...(query.eventType ? { eventType: query.eventType } : {}),
          ...(query.endpointId ? { endpointId: query.endpointId } : {}),
          ...scopeOf(ctx),
        });
        ctx.body = { deliveries: await presentDeliveries(plants, deliveries) };
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
        const [shown] = await presentDeliveries(plants, [delivery]);
        ctx.body = { delivery: shown, attempts: (await outbox.listAttempts(id, scope)).map(presentAttempt) };
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
        const [shown] = await presentDeliveries(plants, [delivery]);
        ctx.body = { delivery: shown };
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
