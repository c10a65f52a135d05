import { describe, expect, it } from "vitest";
import { createPathMatcher } from "./create-path-matcher.js";

describe("createPathMatcher", () => {
  const matches = createPathMatcher("/plant/webhook");

  it("matches the path in any case, with or without one trailing slash", () => {
    for (const path of ["/plant/webhook", "/plant/webhook/", "/PLANT/WEBHOOK", "/Plant/Webhook/"]) {
      expect(matches(path), path).toBe(true);
    }
  });

  it("matches nothing else", () => {
    for (const path of [
      "/plant/webhooks",
      "/plant/webhook//",
      "/plant/webhoo",
      "/plant",
      "/",
      "",
      "x/plant/webhook",
    ]) {
      expect(matches(path), path).toBe(false);
    }
  });

  it("works for a path configured with capitals", () => {
    expect(createPathMatcher("/Hooks/Plant")("/hooks/plant/")).toBe(true);
  });
});
