import { BODY, parseInput, readJsonBody, requestKey } from "@plant-store/api";
import type { RouteTable } from "@plant-store/api/koa";
import type { PlantCatalog } from "./plant-catalog.js";
import { presentPlant } from "./present-plant.js";
import { AddPlantInputSchema } from "./store-inputs.js";

/** The Plant Store's own resource: plants, each added with the New Plant message it queues. */
export function plantRoutes(options: { plants: PlantCatalog; wake: () => void }): RouteTable {
  const { plants, wake } = options;
  return [
    {
      method: "GET",
      path: "/plants",
      access: "operator",
      handler: async (ctx) => {
        ctx.body = { plants: (await plants.list(1000)).map(presentPlant) };
      },
    },
    // With an Idempotency-Key, a client retrying after a timeout gets the first answer again (same plant,
    // nothing queued twice); the same key with another body is a 409.
    {
      method: "POST",
      path: "/plants",
      access: "operator",
      handler: async (ctx) => {
        const key = requestKey(ctx.req.headers, "idempotency-key", undefined);
        // Plants added with one Ordering-Key reach each endpoint in the order they were added, one at a time.
        const orderingKey = requestKey(ctx.req.headers, "ordering-key", undefined);
        const input = parseInput(AddPlantInputSchema, await readJsonBody(ctx.req), "plant", BODY);
        const { plant, queued, replayed } = await plants.add(
          { ...input, ...(orderingKey === undefined ? {} : { orderingKey }) },
          key,
        );
        if (!replayed) wake();
        ctx.status = 201;
        if (replayed) ctx.set("Idempotency-Replayed", "true");
        ctx.body = { plant: presentPlant(plant), queued };
      },
    },
  ];
}
