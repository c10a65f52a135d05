import { presentDelivery } from "@plant-store/api";
import type { DeliveryRecord } from "@plant-store/sender";
import type { CatalogPlant, PlantCatalog } from "./plant-catalog.js";

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** A plant as the admin API and `--json` show it. */
export function presentPlant(plant: CatalogPlant) {
  return {
    id: plant.id,
    name: plant.name,
    ...(plant.tag === undefined ? {} : { tag: plant.tag }),
    webhookId: plant.webhookId,
    createdAt: iso(plant.createdAt),
  };
}

/**
 * Deliveries as `plant-store deliveries` shows them, each with its plant (null for a message the catalog
 * does not hold): the queue knows webhook ids, the catalog knows plants.
 */
export async function presentDeliveriesWithPlants(
  plants: PlantCatalog,
  deliveries: readonly DeliveryRecord[],
) {
  const ids = await plants.plantIdsByWebhookId([
    ...new Set(deliveries.map((delivery) => delivery.webhookId)),
  ]);
  return deliveries.map((delivery) => ({
    ...presentDelivery(delivery),
    plantId: ids.get(delivery.webhookId) ?? null,
  }));
}
