import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateWebhookKeyPair, generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningApp, runCli, startApp } from "../fixtures/start-app.js";

// `plant-receiver check` (the conformance kit of @plant-store/receiver-check) against the receiver
// app as a process: two whsec_ secrets and a v1a key, so every case runs.
const token = "tok_check_command_5d1e";
const secret = generateWebhookSecret();
const nextSecret = generateWebhookSecret();
const keyPair = generateWebhookKeyPair();
const dir = mkdtempSync(join(tmpdir(), "plant-receiver-check-"));

interface Report {
  ok: boolean;
  cases: Array<{ id: string; result: string; got: string }>;
}

describe("plant-receiver check against the receiver app", () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp([
      ...["--token", token, "--db", join(dir, "receiver.db")],
      ...["--secret", secret, "--secret", nextSecret, "--secret", keyPair.publicKey],
    ]);
  });

  afterAll(async () => {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("passes every case, exit 0, and stores each accepted plant once", async () => {
    const { code, stdout, stderr } = await runCli([
      ...["check", `${app.url}/plant/webhook`, "--token", token, "--json"],
      ...["--secret", secret, "--secret", nextSecret, "--secret", keyPair.signingKey],
    ]);
    expect({ code, stderr }).toStrictEqual({ code: 0, stderr: "" });
    const report = JSON.parse(stdout) as Report;
    expect(report.cases.filter((c) => c.result !== "pass")).toStrictEqual([]);
    expect(report.cases.find((c) => c.id === "duplicate")?.got).toBe("200 duplicate: true");
    // valid, unknown-fields, body-as-sent, rotation, v1a, every-key and the two timestamps inside
    // the window: eight plants; the duplicate and every refused request stored nothing.
    const { plants } = (await (await app.read("/plants")).json()) as { plants: unknown[] };
    expect(plants).toHaveLength(8);
  });

  it("exits 1 with a table naming the failed cases when the receiver holds other keys", async () => {
    const { code, stdout } = await runCli([
      ...["check", `${app.url}/plant/webhook`, "--token", token, "--secret", generateWebhookSecret()],
    ]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/│ FAIL │ valid\s+│/);
    expect(stdout).toMatch(/: the receiver does NOT conform\n$/);
  });

  it("names itself plant-receiver check in its help and errors, and the receiver's help points to it", async () => {
    const help = await runCli(["check", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: plant-receiver check \[options\] <url>/);
    const bad = await runCli(["check", "http://127.0.0.1:1/plant/webhook"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^plant-receiver check: invalid arguments:/);
    expect((await runCli(["--help"])).stdout).toContain("plant-receiver check <url> --token <token>");
  });
});
