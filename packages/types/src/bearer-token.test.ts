import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BEARER_TOKEN_PATTERN, BearerTokenSchema } from "./bearer-token.js";

describe("BearerTokenSchema", () => {
  it("accepts every visible ASCII character, alone and together", () => {
    for (let code = 0x21; code <= 0x7e; code += 1) {
      expect(BearerTokenSchema.safeParse(String.fromCharCode(code)).success, `0x${code.toString(16)}`).toBe(
        true,
      );
    }
    expect(BearerTokenSchema.parse("abc.DEF-123_~+/=")).toBe("abc.DEF-123_~+/=");
  });

  it("refuses the empty token and every other code unit anywhere in a token, without repeating it", () => {
    expect(BearerTokenSchema.safeParse("").error?.issues[0]?.message).toBe("must not be empty");
    const outside = [
      ...Array.from({ length: 0x21 }, (_, code) => code),
      0x7f,
      0x80,
      0xa0,
      0xff,
      0x100,
      0x2028,
      0xfeff,
    ];
    for (const code of outside) {
      const bad = String.fromCharCode(code);
      for (const token of [bad, `secret${bad}`, `${bad}secret`, `sec${bad}ret`]) {
        const result = BearerTokenSchema.safeParse(token);
        expect(result.success, `0x${code.toString(16)} in ${JSON.stringify(token)}`).toBe(false);
        expect(JSON.stringify(result.error?.issues.map((issue) => issue.message))).not.toContain("secret");
      }
    }
    expect(BearerTokenSchema.safeParse("a b").error?.issues.map((issue) => issue.message)).toEqual([
      "must be visible ASCII (0x21-0x7e): no spaces, control or non-ASCII characters",
    ]);
    expect(BearerTokenSchema.safeParse("tök").success).toBe(false);
    expect(BearerTokenSchema.safeParse("tok🌱").success).toBe(false);
  });

  it("agrees with a character-by-character reading for any string", () => {
    const visible = (token: string) =>
      token.length > 0 &&
      Array.from(token, (c) => c.charCodeAt(0)).every((code) => code >= 0x21 && code <= 0x7e) &&
      [...token].length === token.length;
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 40 }),
        (token) =>
          BearerTokenSchema.safeParse(token).success === visible(token) &&
          BEARER_TOKEN_PATTERN.test(token) === visible(token),
      ),
    );
  }, 30_000);
});
