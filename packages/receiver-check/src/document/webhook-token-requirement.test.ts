import { describe, expect, it } from "vitest";
import { webhookTokenRequirement } from "./webhook-token-requirement.js";

const components = {
  securitySchemes: {
    bearerAuth: { type: "http", scheme: "Bearer" },
    apiKey: { type: "apiKey", in: "header", name: "x-api-key" },
  },
};

describe("webhookTokenRequirement", () => {
  it("follows the operation's security, else the document's (OpenAPI's rule)", () => {
    const document = { security: [{ bearerAuth: [] }], components };
    expect(webhookTokenRequirement({}, document)).toStrictEqual({ required: true, schemes: ["bearerAuth"] });
    expect(webhookTokenRequirement({ security: [] }, document)).toStrictEqual({
      required: false,
      schemes: [],
    });
    expect(webhookTokenRequirement({}, { components })).toStrictEqual({ required: false, schemes: [] });
    expect(webhookTokenRequirement({ security: [{ bearerAuth: [] }] }, { components })).toStrictEqual({
      required: true,
      schemes: ["bearerAuth"],
    });
  });

  it("needs no token when an empty alternative makes it optional", () => {
    expect(webhookTokenRequirement({ security: [{ bearerAuth: [] }, {}] }, { components })).toStrictEqual({
      required: false,
      schemes: [],
    });
  });

  it("takes the bearer alternative among others, and refuses a requirement the kit cannot send", () => {
    expect(
      webhookTokenRequirement({ security: [{ apiKey: [] }, { bearerAuth: [] }] }, { components }),
    ).toStrictEqual({
      required: true,
      schemes: ["bearerAuth"],
    });
    expect(() => webhookTokenRequirement({ security: [{ apiKey: [] }] }, { components })).toThrow(
      "its security asks for apiKey, and the kit sends only a bearer token (a securitySchemes entry with type: http, scheme: bearer)",
    );
    expect(() => webhookTokenRequirement({ security: [{ unknown: [] }] }, { components })).toThrow(
      "its security asks for unknown",
    );
  });
});
