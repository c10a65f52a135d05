import { describe, expect, it } from "vitest";
import { openapi } from "../src/openapi.js";

// One test per row of ../shared/seed/plant-store-spec.md and per bullet of issue 2.
const webhook = openapi.webhooks["/plant/webhook"];
const schemas = openapi.components.schemas;

describe("seed §1: what the service does", () => {
  it("is an OpenAPI 3.1.0 document titled OpenAPI Plant Store", () => {
    expect(openapi.openapi).toBe("3.1.0");
    expect(openapi.info.title).toBe("OpenAPI Plant Store");
  });

  it("describes itself as a sample API using a plant store", () => {
    expect(openapi.info.description).toBe(
      "A sample API that uses a plant store as an example to demonstrate features in the OpenAPI specification",
    );
  });

  it("is licensed MIT", () => {
    expect(openapi.info.license).toStrictEqual({ name: "MIT", identifier: "MIT" });
  });

  it("declares one plain-http server written with a base_url variable that has a default", () => {
    expect(openapi.servers).toHaveLength(1);
    const [server] = openapi.servers;
    expect(server.url).toBe("http://{base_url}");
    expect(server.variables.base_url.default).toMatch(/^[\w.-]+:\d+$/);
  });
});

describe("seed §4: endpoints", () => {
  it("has an empty path table", () => {
    expect(openapi.paths).toStrictEqual({});
  });

  it("defines exactly one webhook, POST /plant/webhook, about a new plant", () => {
    expect(Object.keys(openapi.webhooks)).toStrictEqual(["/plant/webhook"]);
    expect(Object.keys(webhook)).toStrictEqual(["post"]);
    expect(webhook.post.summary).toBe("New Plant");
    expect(webhook.post.description).toMatch(/^Information about a new plant added to the store/);
  });

  it("requires a JSON NewPlant body", () => {
    expect(webhook.post.requestBody.required).toBe(true);
    expect(Object.keys(webhook.post.requestBody.content)).toStrictEqual(["application/json"]);
    expect(webhook.post.requestBody.content["application/json"].schema).toStrictEqual({
      $ref: "#/components/schemas/NewPlant",
    });
  });
});

describe("seed §2 and issue 2: the payload", () => {
  it("Plant requires a non-empty name and has an optional string tag", () => {
    expect(schemas.Plant.type).toBe("object");
    expect(schemas.Plant.required).toStrictEqual(["name"]);
    expect(schemas.Plant.properties.name).toMatchObject({ type: "string", minLength: 1 });
    expect(schemas.Plant.properties.tag).toMatchObject({ type: "string" });
  });

  it("NewPlant is Plant plus a required int64 id limited to the safe-integer range", () => {
    const [plant, withId] = schemas.NewPlant.allOf;
    expect(plant).toStrictEqual({ $ref: "#/components/schemas/Plant" });
    expect(withId.required).toStrictEqual(["id"]);
    expect(withId.properties.id).toMatchObject({
      type: "integer",
      format: "int64",
      minimum: Number.MIN_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
    });
  });

  it("allows unknown fields and says so", () => {
    expect(schemas.Plant.additionalProperties).toBe(true);
    expect(schemas.Plant.description).toMatch(/Unknown properties are allowed/);
    expect(webhook.post.requestBody.description).toMatch(/ignore fields they do not know/);
    expect(JSON.stringify(schemas.NewPlant)).not.toContain('"additionalProperties":false');
  });
});

describe("seed §5: authentication", () => {
  it("declares bearerAuth, http bearer, as the security requirement of the whole document", () => {
    expect(openapi.security).toStrictEqual([{ bearerAuth: [] }]);
    expect(openapi.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("repeats it on the webhook, since tools disagree on whether global security covers webhooks", () => {
    expect(webhook.post.security).toStrictEqual([{ bearerAuth: [] }]);
  });

  it("documents the three Standard Webhooks headers as required header parameters, and the event type as optional", () => {
    const headers = webhook.post.parameters.map((p) => [p.name, p.in, p.required]);
    expect(headers).toStrictEqual([
      ["webhook-id", "header", true],
      ["webhook-timestamp", "header", true],
      ["webhook-signature", "header", true],
      // Sent by the Plant Store since event types, outside the signature; a receiver may ignore it.
      ["webhook-event-type", "header", false],
    ]);
    expect(webhook.post.parameters[3].schema).toStrictEqual({
      type: "string",
      enum: [webhook.post.operationId],
    });
    const signature = webhook.post.parameters[2];
    expect(signature.description).toContain("v1,<base64 HMAC-SHA256>");
    expect(signature.description).toContain("<webhook-id>.<webhook-timestamp>.<raw body>");
    expect(signature.description).toContain("whsec_<base64>");
    expect(webhook.post.description).toMatch(/bearer token .*\*\*and\*\* a Standard Webhooks v1 signature/);
  });
});

describe("seed §7 and issue 2: answers", () => {
  it("answers 200 with an Ack", () => {
    expect(webhook.post.responses["200"].content["application/json"].schema).toStrictEqual({
      $ref: "#/components/schemas/Ack",
    });
  });

  it.each(["400", "401", "405", "408", "413", "415", "500"] as const)(
    "answers %s with an Error body and an example",
    (status) => {
      const media = webhook.post.responses[status].content["application/json"];
      expect(media.schema).toStrictEqual({ $ref: "#/components/schemas/Error" });
      expect(media.example.error).toBe(Number(status));
    },
  );

  it("Error is {error: int32 status, message: string}, both required", () => {
    expect(schemas.Error.required).toStrictEqual(["error", "message"]);
    expect(schemas.Error.properties.error).toMatchObject({ type: "integer", format: "int32" });
    expect(schemas.Error.properties.message).toMatchObject({ type: "string" });
  });
});

describe("seed §9: versioning", () => {
  // 1.0.0 until the handshake's answer had to prove the signing secret (issue 37): an answer that only
  // echoes the challenge, valid under 1.0.0, fails now, so the contract's major version moved.
  it("is version 2.1.0 of the contract", () => {
    expect(openapi.info.version).toBe("2.1.0");
  });
});
