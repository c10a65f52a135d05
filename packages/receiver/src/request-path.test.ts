import { describe, expect, it } from "vitest";
import { requestPath } from "./request-path.js";

describe("requestPath", () => {
  it("is the part of an origin-form target before its query", () => {
    expect(requestPath("/plant/webhook")).toBe("/plant/webhook");
    expect(requestPath("/plant/webhook?x=1")).toBe("/plant/webhook");
    expect(requestPath("/plant/webhook/?")).toBe("/plant/webhook/");
    expect(requestPath("/")).toBe("/");
  });

  it("is the URL's path for an absolute-form target, as Koa's ctx.path reads it", () => {
    expect(requestPath("http://store.example/plant/webhook?x=1")).toBe("/plant/webhook");
    expect(requestPath("https://store.example")).toBe("/");
  });

  it("is the target itself when it is no URL, and / when there is none", () => {
    expect(requestPath("*")).toBe("*");
    expect(requestPath("plant/webhook")).toBe("plant/webhook");
    expect(requestPath(undefined)).toBe("/");
  });
});
