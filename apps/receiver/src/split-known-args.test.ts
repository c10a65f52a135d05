import { describe, expect, it } from "vitest";
import { splitKnownArgs } from "./split-known-args.js";

const options = [
  { long: "--port", required: true },
  { long: "--token", required: true },
  { long: "--verbose" },
  { long: "--help", short: "-h" },
];

describe("splitKnownArgs", () => {
  it("keeps known options with their values, in both spellings", () => {
    expect(splitKnownArgs(["--port", "1", "--token=a", "--verbose", "-h"], options)).toEqual({
      known: ["--port", "1", "--token=a", "--verbose", "-h"],
      problems: [],
    });
  });

  it("reports unknown options by name only and keeps parsing the known ones after them", () => {
    const split = splitKnownArgs(["--bogus", "--secrets=whsec_abc", "--port", "99999", "-x"], options);
    expect(split.known).toEqual(["--port", "99999"]);
    expect(split.problems).toEqual([
      "--bogus: unknown option",
      "--secrets: unknown option",
      "-x: unknown option",
    ]);
    expect(split.problems.join("\n")).not.toContain("whsec_abc");
  });

  it("takes the next argument as a value even when it starts with a dash, as commander does", () => {
    expect(splitKnownArgs(["--token", "--port"], options)).toEqual({
      known: ["--token", "--port"],
      problems: [],
    });
  });

  it("reports a value missing at the end, and counts stray arguments without echoing them", () => {
    expect(splitKnownArgs(["s3cret", "--port", "1", "--", "--more", "--token"], options).problems).toEqual([
      "3 unexpected arguments: every setting is a --flag (see --help)",
    ]);
    expect(splitKnownArgs(["--port", "1", "--token"], options)).toEqual({
      known: ["--port", "1"],
      problems: ["--token: needs a value"],
    });
  });
});
