import { describe, expect, it } from "vitest";
import { responseExcerpt } from "./response-excerpt.js";

describe("responseExcerpt", () => {
  it("keeps UTF-8 text as it came, control characters other than NUL included", () => {
    expect(responseExcerpt(Buffer.from('{"ok":true}\r\n\t\u0001 🌿'))).toBe('{"ok":true}\r\n\t\u0001 🌿');
  });

  it("turns NUL and bytes that are not UTF-8 into U+FFFD, so the text holds no NUL", () => {
    const excerpt = responseExcerpt(Buffer.from([0x61, 0x00, 0x00, 0xff, 0x62, 0xe2, 0x82]));
    expect(excerpt).toBe("a\uFFFD\uFFFD\uFFFDb\uFFFD");
    expect(excerpt).not.toContain("\u0000");
  });
});
