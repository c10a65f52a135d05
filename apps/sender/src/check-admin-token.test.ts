import { describe, expect, it } from "vitest";
import { checkAdminToken } from "./check-admin-token.js";

describe("checkAdminToken", () => {
  const token = "admin-token-0123456789";

  it("accepts exactly the bearer token", () => {
    expect(checkAdminToken(`Bearer ${token}`, token)).toBe(true);
    expect(checkAdminToken(`bearer ${token}`, token)).toBe(true);
  });

  it("refuses anything else", () => {
    for (const header of [
      undefined,
      "",
      token,
      `Bearer ${token}x`,
      `Bearer ${token.slice(1)}`,
      "Bearer ",
      `Basic ${token}`,
    ]) {
      expect(checkAdminToken(header, token)).toBe(false);
    }
  });
});
