import { endpointInputs } from "@plant-store/api";
import { MAX_PLANT_NAME_LENGTH, MAX_PLANT_TAG_LENGTH, PLANT_STORE_WEBHOOKS } from "@plant-store/types";
import { z } from "zod";

// The contract's limits: a plant the store takes is one every receiver takes.
export const AddPlantInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(MAX_PLANT_NAME_LENGTH),
  tag: z.string().trim().min(1).max(MAX_PLANT_TAG_LENGTH).optional(),
});

/** The webhook API's inputs that name event types, checked against the store's own. */
export const STORE_INPUTS = endpointInputs(PLANT_STORE_WEBHOOKS.eventTypes);
export const { EventTypesSchema, AddEndpointInputSchema, ListDeliveriesQuerySchema } = STORE_INPUTS;
