import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("the package's entry point", () => {
  it("exports only what its README documents", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const undocumented = Object.keys(api).filter((name) => !readme.includes(`\`${name}`));
    expect(undocumented).toEqual([]);
  });
});
