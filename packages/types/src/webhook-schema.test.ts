import { describe, expect, expectTypeOf, it } from "vitest";
import { UnsupportedSchemaError } from "./unsupported-schema-error.js";
import { createWebhookCatalog, describeWebhooks, type TypedWebhookDocument } from "./webhook-catalog.js";
import { SUPPORTED_SCHEMA_KEYWORDS } from "./webhook-schema.js";

const body = (schema: unknown) => ({ requestBody: { content: { "application/json": { schema } } } });

describe("webhook names", () => {
  it("takes x-event-type, else a dotted key, else the operationId, else the key", () => {
    const catalog = createWebhookCatalog({
      webhooks: {
        "/orders/created": {
          post: { operationId: "orderCreated", "x-event-type": "order.created", ...body({}) },
        },
        "order.shipped": { post: { operationId: "orderShipped", ...body({}) } },
        "/plant/webhook": { post: { operationId: "newPlant", ...body({}) } },
        pinged: { post: body({}) },
      },
    });
    expect(catalog.eventTypes.map((type) => [type, catalog.get(type).path])).toEqual([
      ["order.created", "/orders/created"],
      ["order.shipped", "/order.shipped"],
      ["newPlant", "/plant/webhook"],
      ["pinged", "/pinged"],
    ]);
  });

  it("refuses an x-event-type that is not a non-empty string", () => {
    expect(() =>
      createWebhookCatalog({ webhooks: { a: { post: { "x-event-type": 3, ...body({}) } } } }),
    ).toThrow(/x-event-type that is not a non-empty string/);
  });
});

describe("webhook schemas", () => {
  const tree = {
    webhooks: { "tree.grown": { post: body({ $ref: "#/components/schemas/Node" }) } },
    components: {
      schemas: {
        Node: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string" },
            children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
          },
        },
      },
    },
  };

  it("follows a schema that refers to itself (a tree) to any depth", () => {
    const catalog = createWebhookCatalog(tree);
    const deep = { name: "a", children: [{ name: "b", children: [{ name: "c", children: [] }] }] };
    expect(catalog.safeParse("tree.grown", deep).success).toBe(true);
    const wrong = catalog.safeParse("tree.grown", {
      name: "a",
      children: [{ name: "b", children: [{ name: 7 }] }],
    });
    expect(wrong.error?.issues.map((issue) => issue.path.join("."))).toEqual(["children.0.children.0.name"]);
  });

  it("enforces oneOf with a discriminator, allOf, const, enum, formats, and both forms of nullable", () => {
    const catalog = createWebhookCatalog({
      webhooks: {
        "invoice.paid": {
          post: body({
            allOf: [
              { type: "object", required: ["id"], properties: { id: { type: "string", pattern: "^inv_" } } },
              {
                type: "object",
                required: ["method", "paidAt", "currency"],
                properties: {
                  method: {
                    oneOf: [{ $ref: "#/components/schemas/Card" }, { $ref: "#/components/schemas/Bank" }],
                    discriminator: { propertyName: "type" },
                  },
                  paidAt: { type: "string", format: "date-time" },
                  currency: { enum: ["EUR", "USD"] },
                  note: { type: "string", nullable: true },
                  memo: { type: ["string", "null"] },
                },
              },
            ],
          }),
        },
      },
      components: {
        schemas: {
          Card: {
            type: "object",
            required: ["type", "last4"],
            properties: { type: { const: "card" }, last4: { type: "string" } },
          },
          Bank: { type: "object", required: ["type"], properties: { type: { const: "bank" } } },
        },
      },
    });
    const good = {
      id: "inv_1",
      method: { type: "card", last4: "4242" },
      paidAt: "2026-11-27T10:00:00Z",
      currency: "EUR",
      note: null,
      memo: null,
    };
    expect(catalog.safeParse("invoice.paid", good).success).toBe(true);
    for (const bad of [
      { ...good, id: "x" },
      { ...good, method: { type: "card" } },
      { ...good, method: { type: "cash" } },
      { ...good, paidAt: "yesterday" },
      { ...good, currency: "GBP" },
      { ...good, note: 3 },
      { ...good, memo: 3 },
      { ...good, paidAt: undefined },
    ])
      expect(catalog.safeParse("invoice.paid", bad).success, JSON.stringify(bad)).toBe(false);
  });

  it("refuses a keyword it cannot check, naming where it is", () => {
    const document = {
      webhooks: { "a.b": { post: body({ $ref: "#/components/schemas/A" }) } },
      components: { schemas: { A: { type: "object", properties: { x: { not: { type: "string" } } } } } },
    };
    const error = (() => {
      try {
        createWebhookCatalog(document);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UnsupportedSchemaError);
    expect(error).toMatchObject({
      code: "ERR_UNSUPPORTED_SCHEMA",
      path: "#/components/schemas/A/properties/x/not",
      message:
        "The schema at #/components/schemas/A/properties/x/not uses not, which webhook schemas do not support",
    });
    for (const keyword of [
      "if",
      "patternProperties",
      "unevaluatedProperties",
      "dependentRequired",
      "$dynamicRef",
    ])
      expect(() => createWebhookCatalog({ webhooks: { "a.b": { post: body({ [keyword]: {} }) } } })).toThrow(
        `/schema/${keyword} uses ${keyword}`,
      );
    expect(SUPPORTED_SCHEMA_KEYWORDS).not.toContain("not");
  });

  it("ignores x- extensions and annotations", () => {
    const catalog = createWebhookCatalog({
      webhooks: {
        "a.b": {
          post: body({
            type: "integer",
            "x-internal": true,
            description: "d",
            examples: [1],
            deprecated: true,
          }),
        },
      },
    });
    expect(catalog.safeParse("a.b", 1).success).toBe(true);
    expect(catalog.safeParse("a.b", "1").success).toBe(false);
  });
});

describe("webhook auth", () => {
  const schemes = {
    bearerAuth: { type: "http", scheme: "bearer" },
    key: { type: "apiKey", in: "header", name: "x-key" },
  };
  it("needs a token where the webhook's (or else the document's) security names a bearer scheme", () => {
    const described = describeWebhooks({
      security: [{ bearerAuth: [] }],
      webhooks: {
        "a.default": { post: body({}) },
        "a.open": { post: { security: [], ...body({}) } },
        "a.optional": { post: { security: [{}, { bearerAuth: [] }], ...body({}) } },
        "a.key": { post: { security: [{ key: [] }], ...body({}) } },
      },
      components: { securitySchemes: schemes } as never,
    });
    expect(described.map((webhook) => [webhook.eventType, webhook.requiresToken])).toEqual([
      ["a.default", true],
      ["a.open", false],
      ["a.optional", false],
      ["a.key", false],
    ]);
    expect(describeWebhooks({ webhooks: { "a.b": { post: body({}) } } })[0]?.requiresToken).toBe(false);
  });
});

describe("typed documents", () => {
  it("types the catalog from the document's events, with nothing passed by hand", () => {
    type Events = { "order.created": { id: number } };
    const document: TypedWebhookDocument<Events> = {
      webhooks: { "order.created": { post: body({ type: "object" }) } },
    };
    const catalog = createWebhookCatalog(document);
    expectTypeOf(catalog.eventTypes).toEqualTypeOf<ReadonlyArray<"order.created">>();
    const parsed = catalog.safeParse("order.created", { id: 1 });
    if (parsed.success) expectTypeOf(parsed.data).toEqualTypeOf<{ id: number }>();
  });
});
