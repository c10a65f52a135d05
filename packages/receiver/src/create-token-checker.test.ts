import { describe, expect, it, vi } from "vitest";

// Wraps (does not replace) the contract's constant-time comparison, so the test sees every
// comparison the checker makes while the real comparison still decides the outcome.
const comparisons = vi.hoisted(() => [] as [number, number][]);
vi.mock("@plant-store/types", async (importOriginal) => {
  const types = await importOriginal<typeof import("@plant-store/types")>();
  return {
    ...types,
    equalAt: (text: string, offset: number, expected: string) => {
      comparisons.push([text.length - offset, expected.length]);
      return types.equalAt(text, offset, expected);
    },
  };
});

const { createTokenChecker } = await import("./create-token-checker.js");
const { InvalidTokenError } = await import("./errors/invalid-token-error.js");
const { MissingTokenError } = await import("./errors/missing-token-error.js");

const accepted = [
  "tok_live_4f9a1c2e8b7d",
  "t",
  "a-much-longer-rotated-token-with-64-characters-0123456789abcdefgh",
  // Same length as the first: two accepted tokens share one length.
  "tok_live_0000000000Zz",
];
type Checker = ReturnType<typeof createTokenChecker>;
// A checker made per call: code under test that ran while the file loads would count as run by no
// test at all in mutation testing, which then reruns every test for each of its mutants.
const check: Checker = (headers) => createTokenChecker(accepted)(headers);

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

function outcome(checker: Checker, authorization: string | string[] | undefined) {
  try {
    checker({ authorization });
    return "accepted";
  } catch (error) {
    if (error instanceof MissingTokenError) return "missing";
    if (error instanceof InvalidTokenError) return "invalid";
    throw error;
  }
}

describe("createTokenChecker comparison shape", () => {
  it("compares once per accepted token, at that token's length, whatever the candidate's length or matching prefix", () => {
    const tried = candidates();
    expect(tried.length).toBeGreaterThan(200);
    for (const token of tried) {
      comparisons.length = 0;
      const expected = accepted.includes(token) ? "accepted" : "invalid";
      expect(outcome(check, `Bearer ${token}`), token).toBe(expected);
      // One comparison per accepted token (no early exit on a match or a mismatch), always of two
      // strings of the accepted token's length: the work cannot depend on how much of a token matched.
      expect(comparisons).toEqual(accepted.map((t) => [t.length, t.length]));
    }
  });

  it("accepts the second of two tokens of one length, and a token presented right after a longer one", () => {
    // One checker for every call, as a receiver keeps it from one request to the next.
    const check = createTokenChecker(accepted);
    expect(outcome(check, `Bearer ${accepted[3]}`)).toBe("accepted");
    expect(outcome(check, `Bearer ${accepted[2]}`)).toBe("accepted");
    expect(outcome(check, "Bearer t")).toBe("accepted");
    // Nothing of the last candidate is kept for the next one.
    expect(outcome(check, `Bearer ${accepted[0]}`)).toBe("accepted");
    expect(outcome(check, `Bearer ${accepted[0]?.replace("4f9a", "4f9b")}`)).toBe("invalid");
  });
});

describe("createTokenChecker header rules", () => {
  it("accepts the scheme in any case and refuses tokens that differ only in case", () => {
    comparisons.length = 0;
    expect(outcome(check, "bEaReR t")).toBe("accepted");
    expect(outcome(check, "Bearer T")).toBe("invalid");
    expect(comparisons).toEqual([...accepted, ...accepted].map((t) => [t.length, t.length]));
  });

  it("forgives spaces and tabs around the scheme and the token", () => {
    for (const authorization of [
      "Bearer  t",
      "Bearer\tt",
      " Bearer t",
      "\tBearer t",
      "Bearer t ",
      "Bearer t\t",
    ]) {
      expect(outcome(check, authorization), JSON.stringify(authorization)).toBe("accepted");
    }
  });

  it("refuses anything before the scheme or after the token, and a scheme glued to its token", () => {
    for (const authorization of [
      "Bearer t junk",
      "Bearer t t",
      "XBearer t",
      "X Bearer t",
      "Bearert",
      "Bearer",
      "Bearer ",
      "",
      "Basic dTpw",
      "Token t",
      // Unicode spaces split the word too, and are not the spaces or tabs forgiven around it.
      "Bearer t\u2028",
      "Bearer t\u00a0t",
    ]) {
      comparisons.length = 0;
      expect(outcome(check, authorization), JSON.stringify(authorization)).toBe("missing");
      expect(comparisons).toEqual([]);
    }
  });

  it("refuses a missing or repeated header as missing", () => {
    expect(outcome(check, undefined)).toBe("missing");
    expect(outcome(check, ["Bearer t", "Bearer t"])).toBe("missing");
    expect(outcome(check, ["Bearer t"])).toBe("accepted");
  });

  it("refuses a presented token outside visible ASCII before comparing anything (BearerTokenSchema's rule)", () => {
    for (const bad of ["t\u00e9", "\u00e9", "t\u007f", "t\u0000", "t\u0019"]) {
      comparisons.length = 0;
      expect(outcome(check, `Bearer ${bad}`), JSON.stringify(bad)).toBe("invalid");
      expect(comparisons).toEqual([]);
    }
    // A character whose low byte is an accepted token's ("ŵ", U+0175, and "u", 0x75) never matches.
    const lookalike = createTokenChecker(["u"]);
    expect(outcome(lookalike, "Bearer u")).toBe("accepted");
    expect(outcome(lookalike, "Bearer \u0175")).toBe("invalid");
  });
});
