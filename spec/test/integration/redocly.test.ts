import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const specDir = fileURLToPath(new URL("../..", import.meta.url));
const redocly = join(specDir, "node_modules", ".bin", "redocly");
// No telemetry from tests: CI has no business phoning home.
const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; message: string }>;
}

async function lint(file: string): Promise<LintReport> {
  const result = await run(redocly, ["lint", file, "--format=json"], { cwd: specDir, env }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }),
  );
  return JSON.parse(result.stdout) as LintReport;
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "plant-store-spec-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

// Generous timeouts: redocly starts slowly on a busy 2-core machine; no assertion is about time.
describe("redocly", { timeout: 60_000 }, () => {
  it("lints openapi.json with redocly.yaml's strict rules: no errors, no warnings, nothing ignored", async () => {
    const report = await lint("openapi.json");
    expect(report.problems).toStrictEqual([]);
    expect(report.totals).toStrictEqual({ errors: 0, warnings: 0, ignored: 0 });
  });

  it("flags a broken copy under the same rules, so the lint can fail", async () => {
    const document = JSON.parse(await readFile(join(specDir, "openapi.json"), "utf8"));
    document.webhooks["/plant/webhook"].post.requestBody.content[
      "application/json"
    ].examples.withTag.value.id = "one";
    const broken = join(scratch, "broken.json");
    await writeFile(broken, JSON.stringify(document));
    const report = await lint(broken);
    expect(report.problems.map((p) => p.ruleId)).toContain("no-invalid-media-type-examples");
  });

  it("renders the HTML reference", async () => {
    const output = join(scratch, "index.html");
    await run(redocly, ["build-docs", "openapi.json", "--output", output], { cwd: specDir, env });
    const html = await readFile(output, "utf8");
    expect(html).toContain("OpenAPI Plant Store");
    expect(html).toContain("/plant/webhook");
  });
});
