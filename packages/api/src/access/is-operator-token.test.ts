import { describe, expect, it } from "vitest";
import { isOperatorToken } from "./is-operator-token.js";

describe("isOperatorToken", () => {
  const token = "admin-token-0123456789";

  it("accepts exactly the token", () => {
    expect(isOperatorToken(token, token)).toBe(true);
  });

  it("refuses anything else", () => {
    for (const candidate of ["", `${token}x`, token.slice(1), token.toUpperCase(), ` ${token}`]) {
      expect(isOperatorToken(candidate, token)).toBe(false);
    }
  });
});
