import { describe, expect, it } from "vitest";
import { componentJsonSchema } from "./component-json-schema.js";
import { openapi } from "./openapi.js";

describe("componentJsonSchema", () => {
  it("inlines the Plant reference inside NewPlant", () => {
    const schema = componentJsonSchema("NewPlant");
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(JSON.stringify(schema)).not.toContain("$ref");
    expect((schema.allOf as unknown[])[0]).toStrictEqual(openapi.components.schemas.Plant);
  });

  it("returns a schema without references unchanged apart from $schema", () => {
    const { $schema, ...rest } = componentJsonSchema("Error");
    expect($schema).toBeDefined();
    expect(rest).toStrictEqual(openapi.components.schemas.Error);
  });
});
