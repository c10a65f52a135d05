import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, runCli } from "../fixtures/store-process.js";

describe("plant-store endpoints: refused input", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-endpoint-input-"));
  const db = join(dir, "store.db");
  const listed = async () =>
    JSON.stringify(await cliJson<{ endpoints: unknown[] }>(["endpoints", "list", "--db", db]));
  let before = "";

  beforeAll(async () => {
    await cliJson([
      "endpoints",
      "add",
      "https://receiver.example/plant/webhook",
      "--token",
      "tok",
      "--db",
      db,
    ]);
    before = await listed();
  }, 30_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a URL with credentials with exit 2, never echoing the password, and stores nothing", async () => {
    for (const url of [
      "http://user:hunter2-password@receiver.example/plant/webhook",
      "https://user@receiver.example/plant/webhook",
      "https://:hunter2-password@receiver.example/plant/webhook",
    ]) {
      const result = await runCli(["endpoints", "add", url, "--token", "tok", "--db", db]);
      expect(result.code, url).toBe(2);
      expect(result.stderr).toContain("must not contain credentials");
      expect(result.stderr).not.toContain("hunter2-password");
    }
    expect(await listed()).toBe(before);
  });
});
