import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const cli = fileURLToPath(new URL("../../dist/check-mutation-scores-cli.js", import.meta.url));
const fixture = (name: string) =>
  fileURLToPath(new URL(`../fixtures/mutation-scores/${name}`, import.meta.url));

describe("the mutation score check as a packages' test:mutation runs it (dist/check-mutation-scores-cli.js)", () => {
  it("exits 0 in a package whose every file scores at least thresholds.break", async () => {
    const passed = await run(process.execPath, [cli], { cwd: fixture("passing") });
    expect(passed.stdout).toContain("  90.00  src/nested/at-ninety.ts (9 detected, 1 undetected)\n");
    expect(passed.stderr).toBe("");
  });

  it("exits 1 naming the file under it", async () => {
    const failed = await run(process.execPath, [cli], { cwd: fixture("under") }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect({ code: failed.code, stderr: failed.stderr }).toEqual({
      code: 1,
      stderr: "1 of 3 mutated files score under 90: src/nested/under-ninety.ts 89.47\n",
    });
  });
});
