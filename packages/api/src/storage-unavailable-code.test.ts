import { describe, expect, it } from "vitest";
import { storageUnavailableCode } from "./storage-unavailable-code.js";

describe("storageUnavailableCode", () => {
  it("recognises SQLite, PostgreSQL and connection failures, and nothing else", () => {
    expect(storageUnavailableCode({ code: "SQLITE_READONLY" })).toBe("SQLITE_READONLY");
    expect(storageUnavailableCode({ code: "SQLITE_BUSY" })).toBe("SQLITE_BUSY");
    expect(storageUnavailableCode({ code: "55P03" })).toBe("SQLSTATE 55P03");
    expect(storageUnavailableCode({ code: "57P01" })).toBe("SQLSTATE 57P01");
    expect(storageUnavailableCode({ code: "ECONNREFUSED" })).toBe("ECONNREFUSED");
    expect(storageUnavailableCode({ code: "23505" })).toBeUndefined();
    expect(storageUnavailableCode({ code: 5 })).toBeUndefined();
    expect(storageUnavailableCode(new Error("boom"))).toBeUndefined();
    expect(storageUnavailableCode(null)).toBeUndefined();
  });
});
