import { describe, expect, it, vi } from "vitest";

// Wraps (does not replace) node:crypto's timingSafeEqual, so the test sees every comparison the
// checker makes while the real comparison still decides the outcome.
const comparisons = vi.hoisted(() => [] as [number, number][]);
vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof import("node:crypto")>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      comparisons.push([a.byteLength, b.byteLength]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const { createTokenChecker } = await import("./create-token-checker.js");
const { createNodeTokenDigest } = await import("./create-node-token-digest.js");
const { InvalidTokenError } = await import("./errors/invalid-token-error.js");

const accepted = [
  "tok_live_4f9a1c2e8b7d",
  "t",
  "a-much-longer-rotated-token-with-64-characters-0123456789abcdefgh",
];
const check = createTokenChecker(accepted, createNodeTokenDigest());

/** Every prefix, every one-character change at each position, and extensions of each accepted token. */
function candidates(): string[] {
  const out = new Set<string>(["x", "T".repeat(4096)]);
  for (const token of accepted) {
    for (let i = 0; i <= token.length; i++) {
      out.add(token.slice(0, i) || "_");
      if (i < token.length)
        out.add(`${token.slice(0, i)}${token[i] === "z" ? "y" : "z"}${token.slice(i + 1)}`);
    }
    out.add(`${token}z`);
    out.add(`${token}${token}`);
  }
  return [...out];
}

function outcome(token: string): "accepted" | "refused" {
  try {
    check({ authorization: `Bearer ${token}` });
    return "accepted";
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidTokenError);
    return "refused";
  }
}

describe("createTokenChecker comparison shape", () => {
  it("compares fixed-length digests against every accepted token, whatever the candidate's length or matching prefix", () => {
    const tried = candidates();
    expect(tried.length).toBeGreaterThan(150);
    for (const token of tried) {
      comparisons.length = 0;
      const result = outcome(token);
      expect(result).toBe(accepted.includes(token) ? "accepted" : "refused");
      // Same number of comparisons (no early exit on a match or a mismatch), all of 32-byte
      // HMAC-SHA256 digests: the work done cannot depend on how much of a token matched.
      expect(comparisons).toEqual(accepted.map(() => [32, 32]));
    }
  });

  it("accepts the scheme in any case and refuses tokens that differ only in case", () => {
    comparisons.length = 0;
    expect(() => check({ authorization: "bEaReR t" })).not.toThrow();
    expect(() => check({ authorization: "Bearer T" })).toThrow(InvalidTokenError);
    expect(comparisons).toEqual([...accepted, ...accepted].map(() => [32, 32]));
  });
});
