import { describe, expect, it } from "vitest";
import { NewPlantSchema } from "./new-plant.js";
import { PlantSchema } from "./plant.js";

const NUL = "\u0000";

describe("PlantSchema and NewPlantSchema", () => {
  it.each([
    ["name", { id: 1, name: `Mon${NUL}stera` }],
    ["name", { id: 1, name: NUL }],
    ["tag", { id: 1, name: "Monstera", tag: `tropical${NUL}` }],
    ["tag", { id: 1, name: "Monstera", tag: NUL }],
  ])("refuses NUL (U+0000) in %s, naming the field", (field, value) => {
    for (const schema of [PlantSchema, NewPlantSchema]) {
      const result = schema.safeParse(value);
      expect(result.success).toBe(false);
      expect(result.error?.issues).toEqual([
        expect.objectContaining({ path: [field], message: "must not contain the NUL character (U+0000)" }),
      ]);
    }
  });

  it("accepts every other control character, and text around them", () => {
    for (let code = 1; code < 0x20; code++) {
      const c = String.fromCharCode(code);
      expect(NewPlantSchema.safeParse({ id: 1, name: `a${c}b`, tag: c }).success, `U+${code}`).toBe(true);
    }
    expect(NewPlantSchema.safeParse({ id: 1, name: "\u007f\u0080\u2028🌼", tag: "" }).success).toBe(true);
  });
});
