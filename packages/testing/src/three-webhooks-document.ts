/**
 * An OpenAPI 3.1 document of three webhooks, for the tests that prove the toolkit follows any document,
 * not only the Plant Store's one webhook: typed catalogs, subscriptions by event type, payload checks at
 * enqueue, and a receiver that dispatches each webhook to its handler.
 */
export const threeWebhooksDocument = {
  openapi: "3.1.0",
  info: {
    title: "Three webhooks (test fixture)",
    version: "1.0.0",
    license: { name: "MIT", identifier: "MIT" },
  },
  paths: {},
  webhooks: {
    "/orders/created": {
      post: {
        operationId: "orderCreated",
        summary: "An order was placed",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } },
        },
        responses: { "200": { description: "Received" } },
      },
    },
    "/orders/shipped": {
      post: {
        operationId: "orderShipped",
        summary: "An order left the warehouse",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["orderId", "carrier"],
                properties: {
                  orderId: { type: "integer", minimum: 1 },
                  carrier: { type: "string", enum: ["post", "courier"] },
                  trackingCode: { type: "string", minLength: 1 },
                },
              },
            },
          },
        },
        responses: { "200": { description: "Received" } },
      },
    },
    "/customers/updated": {
      post: {
        operationId: "customerUpdated",
        summary: "A customer changed their details",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["customerId", "name"],
                properties: {
                  customerId: { type: "string", minLength: 1 },
                  name: { type: "string", minLength: 1 },
                },
              },
            },
          },
        },
        responses: { "200": { description: "Received" } },
      },
    },
  },
  components: {
    schemas: {
      Order: {
        type: "object",
        required: ["id", "total"],
        properties: {
          id: { type: "integer", minimum: 1 },
          total: { type: "number", minimum: 0 },
          currency: { type: "string", minLength: 3, maxLength: 3 },
        },
      },
    },
  },
} as const;

/** The fixture's event types and their payloads, as a caller of the catalog types them. */
export interface ThreeWebhooksEvents extends Record<string, unknown> {
  orderCreated: { id: number; total: number; currency?: string };
  orderShipped: { orderId: number; carrier: "post" | "courier"; trackingCode?: string };
  customerUpdated: { customerId: string; name: string };
}
