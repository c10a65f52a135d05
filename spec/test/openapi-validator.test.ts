import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { openapi } from "../src/openapi.js";

describe("an independent OpenAPI validator", () => {
  it("accepts the document as OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(openapi) as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("rejects a broken copy, so the check above can fail", async () => {
    const broken = structuredClone(openapi) as unknown as { info: Record<string, unknown> };
    delete broken.info.title;
    const result = await new Validator().validate(broken as unknown as Record<string, unknown>);
    expect(result.valid).toBe(false);
  });
});
