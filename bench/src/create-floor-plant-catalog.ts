import type { BenchPlantCatalog } from "./store-api.js";

export interface FloorPlantCatalog extends BenchPlantCatalog {
  /** Plants "added" so far. */
  readonly added: number;
}

/**
 * The ingest floor's storage: a `PlantCatalog` that keeps nothing and answers each add at once with a
 * made-up plant (as if one endpoint had been queued), so `POST /plants` costs only HTTP, the admin
 * token check, body reading, zod and the answer.
 */
export function createFloorPlantCatalog(): FloorPlantCatalog {
  let added = 0;
  return {
    get added() {
      return added;
    },
    async add(input) {
      added += 1;
      const plant = {
        id: added,
        name: input.name,
        ...(input.tag === undefined ? {} : { tag: input.tag }),
        webhookId: `msg_floor${added}`,
        createdAt: new Date(),
      };
      return { plant, queued: 1, replayed: false };
    },
    async list() {
      return [];
    },
    async plantIdsByWebhookId() {
      return new Map();
    },
  };
}
