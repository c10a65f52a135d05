import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkMutationScores } from "./check-mutation-scores.js";

const fixture = (name: string) =>
  fileURLToPath(new URL(`../test/fixtures/mutation-scores/${name}`, import.meta.url));

/** Runs the check on a directory with its output captured. */
async function check(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await checkMutationScores(dir, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe("checkMutationScores", () => {
  it("prints every file's score and passes when none is under thresholds.break, one at exactly 90 included", async () => {
    // at-ninety.ts: 8 killed and 1 timed out of 10 valid; its compile error, 2 runtime errors and ignored
    // mutant count for nothing, as in Stryker's score.
    expect(await check(fixture("passing"))).toEqual({
      code: 0,
      stdout: [
        "Mutation score per file (at least 90, stryker.config.json's thresholds.break):",
        " 100.00  src/all-killed.ts (3 detected, 0 undetected)",
        "  90.00  src/nested/at-ninety.ts (9 detected, 1 undetected)",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("fails naming each file under thresholds.break with its score, even when the total is above it", async () => {
    // Total: 20 of 22 valid, 90.9; under-ninety.ts alone 17 of 19, 89.47.
    const { code, stdout, stderr } = await check(fixture("under"));
    expect(code).toBe(1);
    expect(stdout).toContain("  89.47  src/nested/under-ninety.ts (17 detected, 2 undetected)\n");
    // A file whose every mutant failed to compile has no score, so nothing to fall under the threshold.
    expect(stdout).toContain("    n/a  src/only-compile-errors.ts (0 detected, 0 undetected)\n");
    expect(stderr).toBe("1 of 3 mutated files score under 90: src/nested/under-ninety.ts 89.47\n");
  });

  it("cuts a score to two decimals, so one a hair under the threshold never reads as the threshold", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mutation-scores-"));
    try {
      // 2999 of 3000 against a threshold of 99.97: 99.9666..., shown as 99.96, not 99.97.
      const mutants = Array.from({ length: 3000 }, (_, index) => ({
        id: String(index),
        mutatorName: "BooleanLiteral",
        status: index === 0 ? "Survived" : "Killed",
        location: { start: { line: 1, column: 1 }, end: { line: 1, column: 5 } },
      }));
      await writeFile(
        join(dir, "stryker.config.json"),
        JSON.stringify({ thresholds: { break: 99.97 }, jsonReporter: { fileName: "report.json" } }),
      );
      await writeFile(
        join(dir, "report.json"),
        JSON.stringify({
          schemaVersion: "1.0",
          thresholds: { high: 99.98, low: 99.97 },
          files: { "a.ts": { language: "typescript", source: "true", mutants } },
        }),
      );
      const { code, stderr } = await check(dir);
      expect({ code, stderr }).toEqual({
        code: 1,
        stderr: "1 of 1 mutated files score under 99.97: a.ts 99.96\n",
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("fails with a clear message when there is no break threshold or no report to read", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mutation-scores-"));
    try {
      await writeFile(join(dir, "stryker.config.json"), JSON.stringify({ thresholds: { break: null } }));
      expect(await check(dir)).toEqual({
        code: 1,
        stdout: "",
        stderr:
          "stryker.config.json has no thresholds.break: the per-file check holds every file to that number\n",
      });
      await writeFile(join(dir, "stryker.config.json"), JSON.stringify({ thresholds: { break: 90 } }));
      const missing = await check(dir);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(
        `cannot read the mutation report ${join(dir, "reports/mutation/mutation.json")} (does stryker.config.json list the "json" reporter, and did stryker run?)`,
      );
      await writeFile(
        join(dir, "stryker.config.json"),
        JSON.stringify({ thresholds: { break: 90 }, jsonReporter: { fileName: "other.json" } }),
      );
      await writeFile(join(dir, "other.json"), JSON.stringify({ schemaVersion: "1.0" }));
      expect(await check(dir)).toEqual({
        code: 1,
        stdout: "",
        stderr: `${join(dir, "other.json")} is not a mutation testing report: it has no "files"\n`,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
