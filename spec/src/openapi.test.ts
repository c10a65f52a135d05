import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderOpenapiModule } from "../scripts/generate-openapi-module.mjs";
import { CONTRACT_VERSION } from "./contract-version.js";
import { openapi } from "./openapi.js";

const json = readFileSync(new URL("../openapi.json", import.meta.url), "utf8");

describe("the typed openapi export", () => {
  it("is the same value as openapi.json", () => {
    expect(openapi).toStrictEqual(JSON.parse(json));
  });

  it("is the committed output of the generator (run `pnpm --filter @plant-store/spec generate` after editing openapi.json)", () => {
    const committed = readFileSync(new URL("./openapi.ts", import.meta.url), "utf8");
    expect(committed).toBe(renderOpenapiModule(json));
  });

  it("keeps literal types, so the contract version is known at compile time", () => {
    const version: "2.1.0" = CONTRACT_VERSION;
    expect(version).toBe("2.1.0");
  });
});
