import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const appDir = fileURLToPath(new URL("../..", import.meta.url));
const redocly = join(appDir, "node_modules", ".bin", "redocly");
// The webhook contract's rules (spec/redocly.yaml): the admin API is held to the same standard.
const config = fileURLToPath(new URL("../../../../spec/redocly.yaml", import.meta.url));
// No telemetry from tests: CI has no business phoning home.
const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; message: string }>;
}

// Generous timeout: redocly starts slowly on a busy 2-core machine; no assertion is about time.
describe("admin-openapi.json", { timeout: 60_000 }, () => {
  it("lints under the webhook contract's strict rules: no errors, no warnings, nothing ignored", async () => {
    const result = await run(redocly, ["lint", "admin-openapi.json", `--config=${config}`, "--format=json"], {
      cwd: appDir,
      env,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const report = JSON.parse(result.stdout) as LintReport;
    expect(report.problems).toStrictEqual([]);
    expect(report.totals).toStrictEqual({ errors: 0, warnings: 0, ignored: 0 });
  });
});
