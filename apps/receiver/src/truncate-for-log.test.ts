import { describe, expect, it } from "vitest";
import { MAX_LOGGED_STRING, truncateForLog } from "./truncate-for-log.js";

describe("truncateForLog", () => {
  it("keeps strings up to the limit as they are", () => {
    expect(truncateForLog("Monstera deliciosa")).toBe("Monstera deliciosa");
    const exact = "x".repeat(MAX_LOGGED_STRING);
    expect(truncateForLog(exact)).toBe(exact);
  });

  it("cuts a 1 MiB name to the limit and says how long it was", () => {
    const name = "n".repeat(1024 * 1024);
    expect(truncateForLog(name)).toBe(`${"n".repeat(MAX_LOGGED_STRING)}… (1048576 UTF-16 units in all)`);
  });

  it("never leaves half a surrogate pair at the cut", () => {
    const cut = truncateForLog(`${"a".repeat(9)}🌼🌼🌼`, 10);
    expect(cut).toBe(`${"a".repeat(9)}… (15 UTF-16 units in all)`);
    expect(Buffer.from(cut).toString()).toBe(cut);
    expect(truncateForLog("🌼🌼🌼", 4)).toBe("🌼🌼… (6 UTF-16 units in all)");
  });
});
