import { describe, expect, it } from "vitest";
import { resolveCheckWebhook, WebhookProblems } from "./resolve-check-webhook.js";

/** A one-webhook document with this request body media type and these components. */
function documentWith(media: object, extra: object = {}) {
  return {
    openapi: "3.1.0",
    webhooks: {
      "/parcel/webhook": {
        post: {
          operationId: "parcelLost",
          requestBody: { content: { "application/json": media } },
          responses: {},
        },
      },
    },
    ...extra,
  };
}

const Parcel = {
  type: "object",
  required: ["code", "weight"],
  properties: {
    code: { type: "string", pattern: "^P[0-9]{3}$" },
    weight: { type: "number", exclusiveMinimum: 0 },
  },
};

const problemsOf = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookProblems) return error.problems;
    throw error;
  }
  return [];
};

describe("resolveCheckWebhook", () => {
  it("takes the document's only webhook, named and placed as the catalog names it", () => {
    const webhook = resolveCheckWebhook(documentWith({ schema: Parcel }), undefined);
    expect(webhook).toMatchObject({
      eventType: "parcelLost",
      path: "/parcel/webhook",
      token: { required: false },
      valid: [{ label: "built from the schema", value: { code: "P000", weight: 0.5 } }],
      unknownFieldsAccepted: true,
      invalidStatus: 400,
    });
    expect(webhook.invalid.map((p) => [p.kind, p.refused])).toStrictEqual([
      ["required-missing", true],
      ["wrong-type", true],
      ["outside-enum", false],
    ]);
  });

  it("takes the examples in the document's order, the media type's before the schema's", () => {
    const webhook = resolveCheckWebhook(
      documentWith({
        schema: { ...Parcel, examples: [{ code: "P003", weight: 3 }] },
        example: { code: "P001", weight: 1 },
        examples: {
          second: { value: { code: "P002", weight: 2 } },
          elsewhere: { externalValue: "https://example.com/x.json" },
        },
      }),
      "parcelLost",
    );
    expect(webhook.valid.map((v) => v.label)).toStrictEqual([
      "example",
      "examples.second",
      "schema examples[0]",
    ]);
  });

  it("expects 422 for an invalid payload when the document lists 422 and not 400", () => {
    const document = documentWith({ schema: Parcel });
    document.webhooks["/parcel/webhook"].post.responses = { "422": { description: "Unprocessable" } };
    expect(resolveCheckWebhook(document, undefined).invalidStatus).toBe(422);
  });

  it("lists every reason it cannot check the webhook at once", () => {
    expect(
      problemsOf(() =>
        resolveCheckWebhook(
          documentWith(
            { schema: Parcel, examples: { wrong: { value: { code: "X1", weight: 0 } } } },
            {
              security: [{ key: [] }],
              components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "k" } } },
            },
          ),
          undefined,
        ),
      ),
    ).toStrictEqual([
      'spec: the webhook parcelLost ("/parcel/webhook"): its security asks for key, and the kit sends only a bearer token (a securitySchemes entry with type: http, scheme: bearer)',
      expect.stringMatching(
        /^spec: the webhook parcelLost \("\/parcel\/webhook"\): its examples\.wrong does not match its schema \(code: .+; weight: .+\)$/,
      ),
    ]);
  });

  it("asks for an example when it cannot build a body from the schema", () => {
    expect(
      problemsOf(() =>
        resolveCheckWebhook(
          documentWith({
            schema: {
              ...Parcel,
              properties: { ...Parcel.properties, code: { type: "string", pattern: "^(?=P)\\w+$" } },
            },
          }),
          undefined,
        ),
      ),
    ).toStrictEqual([
      'spec: the webhook parcelLost ("/parcel/webhook") has no example and the kit cannot build a body from its schema: code: its pattern ^(?=P)\\w+$ is not one the kit can follow; add an example to the document',
    ]);
  });

  it("passes on what the catalog refuses, and a document without webhooks", () => {
    const [problem] = problemsOf(() => resolveCheckWebhook({ webhooks: { x: { get: {} } } }, undefined));
    expect(problem).toMatch(/^spec: .*x/);
    expect(problemsOf(() => resolveCheckWebhook({ openapi: "3.1.0" }, undefined))).toStrictEqual([
      "spec: the document has no webhooks",
    ]);
  });
});
