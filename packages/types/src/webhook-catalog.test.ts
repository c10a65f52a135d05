import { openapi } from "@plant-store/spec";
import { type ThreeWebhooksEvents, threeWebhooksDocument } from "@plant-store/testing";
import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import { NEW_PLANT_EVENT, type PlantStoreEvents } from "./delivery.js";
import { NewPlantSchema } from "./new-plant.js";
import { PLANT_STORE_WEBHOOKS } from "./plant-store-webhooks.js";
import { UnknownEventTypeError } from "./unknown-event-type-error.js";
import { createWebhookCatalog } from "./webhook-catalog.js";

describe("createWebhookCatalog", () => {
  it("reads the contract's one webhook: newPlant at /plant/webhook", () => {
    const catalog = createWebhookCatalog<PlantStoreEvents>(openapi);
    expect(catalog.eventTypes).toEqual([NEW_PLANT_EVENT]);
    expect(catalog.get("newPlant").path).toBe("/plant/webhook");
    expect(catalog.byPath("/plant/webhook")?.eventType).toBe("newPlant");
    expect(catalog.byPath("/plant/webhook/")).toBeUndefined();
    expect(catalog.get("newPlant").requiresToken).toBe(true);
  });

  it("holds the contract as PLANT_STORE_WEBHOOKS does: the same types and paths", () => {
    const generated = createWebhookCatalog<PlantStoreEvents>(openapi);
    expect(PLANT_STORE_WEBHOOKS.eventTypes).toEqual(generated.eventTypes);
    for (const type of generated.eventTypes)
      expect(PLANT_STORE_WEBHOOKS.get(type).path).toBe(generated.get(type).path);
    expect(PLANT_STORE_WEBHOOKS.get("newPlant").schema).toBe(NewPlantSchema);
  });

  it("makes from the document a schema that decides every payload as the hand-written NewPlantSchema does", () => {
    const generated = createWebhookCatalog<PlantStoreEvents>(openapi).get("newPlant").schema;
    const field = fc.oneof(
      fc.string(),
      fc.string({ minLength: 195, maxLength: 205 }),
      fc.constantFrom("", "a\u0000b", "Monstera"),
      fc.integer(),
      fc.double(),
      fc.constantFrom(2 ** 53, -(2 ** 53), 2 ** 53 - 1, 1.5, null, true),
    );
    const plantLike = fc.record(
      { id: field, name: field, tag: field, extra: fc.jsonValue() },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(plantLike, fc.jsonValue()), (value) => {
        const mine = NewPlantSchema.safeParse(value);
        const theirs = generated.safeParse(value);
        expect(theirs.success, JSON.stringify(value)).toBe(mine.success);
        if (mine.success && theirs.success) expect(theirs.data).toEqual(mine.data);
      }),
      { numRuns: 2_000 },
    );
  });

  it("follows a document of three webhooks: types, paths, schemas with their $refs", () => {
    const catalog = createWebhookCatalog<ThreeWebhooksEvents>(threeWebhooksDocument);
    expect(catalog.eventTypes).toEqual(["orderCreated", "orderShipped", "customerUpdated"]);
    expect(catalog.eventTypes.map((type) => catalog.get(type).path)).toEqual([
      "/orders/created",
      "/orders/shipped",
      "/customers/updated",
    ]);
    expect(catalog.safeParse("orderCreated", { id: 7, total: 12.5, currency: "EUR" }).success).toBe(true);
    const refused = catalog.safeParse("orderCreated", { id: 0, total: -1, currency: "EU" });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => issue.path.join("."))).toEqual(["id", "total", "currency"]);
    expect(catalog.safeParse("orderShipped", { orderId: 7, carrier: "pigeon" }).success).toBe(false);
    expect(catalog.has("customerUpdated")).toBe(true);
    expect(catalog.has("newPlant")).toBe(false);
    expect(() => catalog.safeParse("newPlant" as "orderCreated", {})).toThrow(UnknownEventTypeError);
    expectTypeOf(catalog.safeParse("orderShipped", {})).toMatchTypeOf<
      { success: true; data: ThreeWebhooksEvents["orderShipped"] } | { success: false }
    >();
  });

  it("names a webhook without an operationId by its key, and one keyed by name at /<event type>", () => {
    const body = { content: { "application/json": { schema: { type: "object" } } } };
    const catalog = createWebhookCatalog({
      webhooks: { "/a/b": { post: { requestBody: body } }, pinged: { post: { requestBody: body } } },
    });
    expect(catalog.eventTypes.map((type) => [type, catalog.get(type).path])).toEqual([
      ["/a/b", "/a/b"],
      ["pinged", "/pinged"],
    ]);
  });

  it("refuses a document it cannot make a catalog of, saying why", () => {
    const body = { content: { "application/json": { schema: { $ref: "#/components/schemas/Missing" } } } };
    expect(() => createWebhookCatalog({ webhooks: { x: { post: { requestBody: body } } } })).toThrow(
      'The schema at #/webhooks/x/post/requestBody/content/application~1json/schema/$ref cannot follow "#/components/schemas/Missing"',
    );
    expect(() => createWebhookCatalog({ webhooks: { x: {} } })).toThrow(
      /no POST with an application\/json body/,
    );
    const same = {
      post: { operationId: "one", requestBody: { content: { "application/json": { schema: {} } } } },
    };
    expect(() => createWebhookCatalog({ webhooks: { "/a": same, "/b": same } })).toThrow(
      /share the event type one/,
    );
  });
});
