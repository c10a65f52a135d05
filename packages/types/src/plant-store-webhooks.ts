import type { PlantStoreEvents } from "./delivery.js";
import { NewPlantSchema } from "./new-plant.js";
import { defineWebhookCatalog } from "./webhook-catalog.js";

/**
 * The contract's webhooks: New Plant (`newPlant`) at `/plant/webhook`, with the hand-written
 * `NewPlantSchema`. The tests prove it is what `createWebhookCatalog` makes of `@plant-store/spec`'s
 * document (same types and paths; the schemas decide every payload alike), so a package can hold it
 * without carrying the document.
 */
export const PLANT_STORE_WEBHOOKS = defineWebhookCatalog<PlantStoreEvents>([
  { eventType: "newPlant", path: "/plant/webhook", schema: NewPlantSchema, summary: "New Plant" },
]);
