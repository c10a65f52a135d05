import { describe, expect, it } from "vitest";
import { show, showLine } from "./show.js";

describe("show", () => {
  it("escapes bidirectional controls and invisible characters, so a URL cannot read as another", () => {
    expect(show("https://x.example/?x=\u202Egnp.exe")).toBe("https://x.example/?x=\\u202egnp.exe");
    expect(show("a\u200bb\u0000c\ufeff")).toBe("a\\u200bb\\u0000c\\ufeff");
  });

  it("keeps line feeds (answers keep their lines), shows null as nothing and cuts at max", () => {
    expect(show("one\ntwo\r")).toBe("one\ntwo\\u000d");
    expect(show(null)).toBe("");
    expect(show(undefined)).toBe("");
    expect(show("abcdef", 3)).toBe("abc…");
  });
});

describe("showLine", () => {
  it("escapes line feeds too: a name stays on one line", () => {
    expect(showLine("Fern\nBasil\u2028")).toBe("Fern\\u000aBasil\\u2028");
  });
});
