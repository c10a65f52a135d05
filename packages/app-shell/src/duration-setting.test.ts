import { describe, expect, it } from "vitest";
import { durationSetting } from "./duration-setting.js";

describe("durationSetting", () => {
  it("reads one grammar, a bare number being milliseconds", () => {
    const setting = durationSetting();
    expect(["250ms", "15s", "5m", "2h", "5d", "15000", "1.5s"].map((text) => setting.parse(text))).toEqual([
      250, 15_000, 300_000, 7_200_000, 432_000_000, 15_000, 1500,
    ]);
  });

  it("says what it takes, and its bounds in the same grammar, without repeating the value", () => {
    const setting = durationSetting({ min: 1000, max: 15_000, maxReason: "the contract's limit" });
    const messageOf = (value: string) => setting.safeParse(value).error?.issues[0]?.message;
    expect(messageOf("forever")).toBe(
      "must be a number of milliseconds or a duration such as 250ms, 15s, 5m, 2h, 5d",
    );
    expect(messageOf("500ms")).toBe("must be at least 1s");
    expect(messageOf("16s")).toBe("must be at most 15s (the contract's limit)");
    expect(setting.parse("15s")).toBe(15_000);
  });
});
