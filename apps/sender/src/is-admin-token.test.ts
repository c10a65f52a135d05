import { describe, expect, it } from "vitest";
import { isAdminToken } from "./is-admin-token.js";

describe("isAdminToken", () => {
  const token = "admin-token-0123456789";

  it("accepts exactly the token", () => {
    expect(isAdminToken(token, token)).toBe(true);
  });

  it("refuses anything else", () => {
    for (const candidate of ["", `${token}x`, token.slice(1), token.toUpperCase(), ` ${token}`]) {
      expect(isAdminToken(candidate, token)).toBe(false);
    }
  });
});
