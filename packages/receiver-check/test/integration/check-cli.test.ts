import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECK_EXIT, type CheckReport, runCheckCli } from "../../src/index.js";
import { type FlawedReceivers, startFlawedReceivers } from "../fixtures/start-flawed-receivers.js";

const run = promisify(execFile);
const token = "cli-check-token";
const secret = generateWebhookSecret();
let receivers: FlawedReceivers;

beforeAll(async () => {
  receivers = await startFlawedReceivers(token, secret);
});

afterAll(async () => {
  await receivers?.close();
});

/** Runs the CLI in-process with its output captured. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCheckCli(argv, {
    stdout: { write: (text: string) => (stdout += text), columns: 120 },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe("plant-receiver-check, the command", () => {
  it("prints a table with one row per case and exits 0 when the receiver conforms", async () => {
    const { code, stdout, stderr } = await cli([receivers.url("none"), "--token", token, "--secret", secret]);
    expect({ code, stderr }).toStrictEqual({ code: CHECK_EXIT.ok, stderr: "" });
    expect(stdout).toContain(`Receiver check of ${receivers.url("none")}`);
    expect(stdout).toMatch(/│ PASS │ valid\s+│/);
    expect(stdout).toMatch(/│ skip │ v1a\s+│/);
    expect(stdout).toMatch(
      /21 passed, 0 failed, 2 skipped; 20 requests in [\d.]+ s: the receiver conforms\n$/,
    );
    // Fits the terminal it was given.
    expect(Math.max(...stdout.split("\n").map((line) => line.length))).toBeLessThanOrEqual(120);
  });

  it("--json prints the report for CI and exits 1 when a case fails", async () => {
    const { code, stdout } = await cli([
      receivers.url("no-timestamp-window"),
      ...["--token", token, "--secret", secret, "--json"],
    ]);
    expect(code).toBe(CHECK_EXIT.failed);
    const report = JSON.parse(stdout) as CheckReport;
    expect(report.ok).toBe(false);
    expect(
      report.cases.filter((c) => c.result === "fail").map((c) => [c.id, c.expected, c.got]),
    ).toStrictEqual([
      ["timestamp-stale", "401", '200 {"received":true,"duplicate":false}'],
      ["timestamp-future", "401", '200 {"received":true,"duplicate":false}'],
    ]);
  });

  it("reads the token and the secrets from the environment (comma-separated)", async () => {
    process.env.PLANT_RECEIVER_CHECK_TOKEN = token;
    process.env.PLANT_RECEIVER_CHECK_SECRETS = `${secret},${generateWebhookSecret()}`;
    try {
      const { code, stdout } = await cli([receivers.url("none"), "--json"]);
      const report = JSON.parse(stdout) as CheckReport;
      // The second secret is unknown to this receiver: every-key fails, everything else passes.
      expect(code).toBe(CHECK_EXIT.failed);
      expect(report.cases.filter((c) => c.result === "fail").map((c) => c.id)).toStrictEqual(["every-key"]);
    } finally {
      delete process.env.PLANT_RECEIVER_CHECK_TOKEN;
      delete process.env.PLANT_RECEIVER_CHECK_SECRETS;
    }
  });

  it("refuses unusable arguments all at once, exit 2, before sending anything and without echoing a key", async () => {
    const publicKey = "whpk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    const { code, stdout, stderr } = await cli([
      "ftp://127.0.0.1/plant/webhook",
      ...["--token", "has space", "--secret", publicKey, "--secret", "whsec_c2hvcnQ=", "--timeout", "20000"],
    ]);
    expect({ code, stdout }).toStrictEqual({ code: CHECK_EXIT.usage, stdout: "" });
    expect(stderr).toBe(
      [
        "plant-receiver-check: invalid arguments:",
        "  <url>: must be an http:// or https:// URL",
        "  --token (PLANT_RECEIVER_CHECK_TOKEN): must be visible ASCII (0x21-0x7e): no spaces, control or non-ASCII characters",
        "  --secret (PLANT_RECEIVER_CHECK_SECRETS) (value 1): is a whpk_ public key, which can only verify: give the whsk_ signing key it belongs to",
        "  --secret (PLANT_RECEIVER_CHECK_SECRETS) (value 2): Webhook secret must decode to at least 16 bytes",
        "  --timeout: must be at most 15000 ms, the store's own limit",
        "Run with --help to see every option.",
        "",
      ].join("\n"),
    );
    expect(stderr).not.toContain(publicKey);
  });

  it("says what is missing when there is no URL, token or secret", async () => {
    expect((await cli([])).code).toBe(CHECK_EXIT.usage);
    const { code, stderr } = await cli([receivers.url("none")]);
    expect(code).toBe(CHECK_EXIT.usage);
    expect(stderr).toContain("--token (PLANT_RECEIVER_CHECK_TOKEN): must not be empty");
    expect(stderr).toContain(
      "--secret (PLANT_RECEIVER_CHECK_SECRETS): at least one whsec_ secret or whsk_ signing key is needed to sign",
    );
  });

  it("--help lists every option and exits 0", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(CHECK_EXIT.ok);
    for (const flag of ["<url>", "--token", "--secret", "--timeout", "--json"])
      expect(stdout).toContain(flag);
  });

  it("runs as the package's bin (dist/cli.js), with the exit code of its verdict", async () => {
    const bin = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
    const passed = await run(process.execPath, [
      bin,
      receivers.url("none"),
      "--token",
      token,
      "--secret",
      secret,
    ]);
    expect(passed.stdout).toContain("the receiver conforms");
    const failed = await run(process.execPath, [
      bin,
      receivers.url("no-bearer-check"),
      ...["--token", token, "--secret", secret, "--json"],
    ]).catch((error: { code: number; stdout: string }) => error);
    expect("code" in failed ? failed.code : 0).toBe(CHECK_EXIT.failed);
    expect((JSON.parse(failed.stdout) as CheckReport).failed).toBe(3);
    // Two processes, each a whole check: vitest's default 5 s limit was hit on a loaded 2-core machine
    // (a limit, not an assertion about speed).
  }, 30_000);
});

describe("plant-receiver-check against a URL nobody listens on", () => {
  it("fails every case that sends, saying why, skips the answer time and exits 1", async () => {
    // A port that was free a moment ago: closed again, so connecting to it is refused.
    const server = createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const { code, stdout } = await cli([
      `http://127.0.0.1:${port}/plant/webhook`,
      ...["--token", token, "--secret", secret, "--json"],
    ]);
    expect(code).toBe(CHECK_EXIT.failed);
    const report = JSON.parse(stdout) as CheckReport;
    expect(new Set(report.cases.filter((c) => c.result === "fail").map((c) => c.got))).toStrictEqual(
      new Set(["no answer (ECONNREFUSED)"]),
    );
    expect(report.cases.filter((c) => c.result !== "fail").map((c) => [c.id, c.result])).toStrictEqual([
      ["v1a", "skip"],
      ["every-key", "skip"],
      ["answer-time", "skip"],
    ]);
    expect(report.requests).toBe(20);
  });
});
