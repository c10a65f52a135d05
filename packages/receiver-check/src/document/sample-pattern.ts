/**
 * One string a simple `pattern` matches, or `undefined` when the pattern uses more than the kit can
 * follow (lookarounds, back-references, Unicode classes): the caller then asks for an example. Simple
 * means literals, `.`, `\d \w \s`, character classes, groups with `|` (the first branch is taken) and the
 * quantifiers `? * + {n} {n,} {n,m}` (the least count they allow, at least one for `+`).
 */
export function samplePattern(pattern: string): string | undefined {
  let at = 0;
  let failed = false;

  const fail = (): string => {
    failed = true;
    return "";
  };

  /** One character a class `[...]` allows: its first literal or the start of its first range. */
  const classSample = (): string => {
    // `at` is just past `[`.
    const negated = pattern[at] === "^";
    if (negated) at++;
    const start = at;
    while (at < pattern.length && (pattern[at] !== "]" || at === start)) at += pattern[at] === "\\" ? 2 : 1;
    if (pattern[at] !== "]") return fail();
    const body = pattern.slice(start, at);
    at++;
    let allowed: RegExp;
    try {
      allowed = new RegExp(`^[${negated ? "^" : ""}${body}]$`, "u");
    } catch {
      return fail();
    }
    return ["a", "A", "0", "1", "_", "-", "x", " ", "."].find((c) => allowed.test(c)) ?? fail();
  };

  /** One atom: its sample, before its quantifier. */
  const atom = (): string => {
    const c = pattern[at++] as string;
    if (c === "\\") {
      const e = pattern[at++];
      if (e === undefined) return fail();
      if (e === "d") return "1";
      if (e === "w") return "a";
      if (e === "s") return " ";
      if (/[dDwWsSbBpPkux0-9]/.test(e)) return fail();
      if (e === "n") return "\n";
      if (e === "t") return "\t";
      return e;
    }
    if (c === "[") return classSample();
    if (c === "(") {
      if (pattern[at] === "?") {
        if (pattern[at + 1] !== ":") return fail();
        at += 2;
      }
      const inner = alternatives();
      if (pattern[at] !== ")") return fail();
      at++;
      return inner;
    }
    if (c === ".") return "a";
    if ("*+?{)|".includes(c)) return fail();
    return c;
  };

  /** The least count the quantifier after an atom allows (1 without one). */
  const quantifier = (): number => {
    const c = pattern[at];
    let count = 1;
    if (c === "?" || c === "*") {
      at++;
      count = 0;
    } else if (c === "+") {
      at++;
    } else if (c === "{") {
      const match = /^\{(\d+)(,\d*)?\}/.exec(pattern.slice(at));
      if (match === null) return 1;
      at += match[0].length;
      count = Number(match[1]);
    }
    if (pattern[at] === "?") at++; // lazy: the same least count
    return count;
  };

  const sequence = (): string => {
    let out = "";
    while (at < pattern.length && pattern[at] !== "|" && pattern[at] !== ")") {
      if (pattern[at] === "^" || pattern[at] === "$") {
        at++;
        continue;
      }
      const sample = atom();
      if (failed) return "";
      out += sample.repeat(quantifier());
    }
    return out;
  };

  /** `a|b|c`: the first branch's sample; the others are skipped over. */
  const alternatives = (): string => {
    const first = sequence();
    while (!failed && pattern[at] === "|") {
      at++;
      sequence();
    }
    return first;
  };

  const sample = alternatives();
  if (failed || at !== pattern.length) return undefined;
  try {
    return new RegExp(pattern, "u").test(sample) ? sample : undefined;
  } catch {
    return undefined;
  }
}
