import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, runCli } from "../fixtures/cli-in-process.js";

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

  // NUL cannot reach a process through argv or the environment at all (the OS strings end there);
  // every other class can, and is refused before the database is touched.
  const badTokens = {
    space: "tok en-secret",
    CR: "tok\ren-secret",
    LF: "tok\nen-secret",
    "CR LF": "tok\r\nX-Injected: 1",
    TAB: "tok\ten-secret",
    DEL: "tok\x7fen-secret",
    "Latin-1": "tökén-secret",
    emoji: "tok🌱en-secret",
  };

  it("refuses a token outside visible ASCII with exit 2 on add and set-token, from a flag or the environment, and stores nothing", async () => {
    for (const [kind, token] of Object.entries(badTokens)) {
      // The environment goes through the same schema: two kinds there are enough to show it.
      const fromEnv = kind === "CR LF" || kind === "emoji";
      for (const [args, env] of [
        [["endpoints", "add", "https://receiver.example/plant/webhook", "--token", token], {}],
        [["endpoints", "set-token", "1", "--token", token], {}],
        ...(fromEnv
          ? ([
              [["endpoints", "add", "https://receiver.example/plant/webhook"], { PLANT_STORE_TOKEN: token }],
              [["endpoints", "set-token", "1"], { PLANT_STORE_TOKEN: token }],
            ] as const)
          : []),
      ] as const) {
        const result = await runCli([...args, "--db", db], env);
        expect(result.code, `${kind}: ${args.join(" ")}`).toBe(2);
        expect(result.stderr).toContain("--token (PLANT_STORE_TOKEN): must be visible ASCII");
        expect(result.stderr).not.toContain("secret");
      }
    }
    expect(await listed()).toBe(before);
  }, 120_000);

  it("subscribes a new endpoint with repeated --event-type, refusing with exit 2 a type the store does not have", async () => {
    const refused = await runCli([
      ...["endpoints", "add", "https://typed.example/hook", "--token", "tok", "--event-type", "newPlant"],
      ...["--event-type", "orderCreated", "--db", db],
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "--event-type (PLANT_STORE_EVENT_TYPE) (value 2): matches none of this API's event types (newPlant",
    );
    expect(await listed()).toBe(before);
    const added = await cliJson<{ endpoint: { eventTypes: string[] | null } }>([
      ...["endpoints", "add", "https://typed.example/hook", "--token", "tok", "--event-type", "newPlant"],
      ...["--event-type", "new*", "--db", db],
    ]);
    expect(added.endpoint.eventTypes).toEqual(["newPlant", "new*"]);
  });

  it("sets an endpoint's rate limit with --rate-limit and lifts it with set-rate-limit --no-rate-limit, refusing 0 with exit 2", async () => {
    const refused = await runCli([
      ...["endpoints", "add", "https://limited.example/hook", "--token", "tok", "--rate-limit", "0"],
      ...["--db", db],
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--rate-limit (PLANT_STORE_RATE_LIMIT)");
    const added = await cliJson<{ endpoint: { id: number; rateLimit: number | null } }>([
      ...["endpoints", "add", "https://limited.example/hook", "--token", "tok", "--rate-limit", "25"],
      ...["--db", db],
    ]);
    expect(added.endpoint.rateLimit).toBe(25);
    const lifted = await cliJson<{ endpoint: { rateLimit: number | null } }>([
      ...["endpoints", "set-rate-limit", String(added.endpoint.id), "--no-rate-limit", "--db", db],
    ]);
    expect(lifted.endpoint.rateLimit).toBeNull();
  });

  it("moves an endpoint with set-url --url, refusing with exit 2 a URL that add refuses", async () => {
    const refused = await runCli([
      ...["endpoints", "set-url", "1", "--url", "http://user:hunter2-password@elsewhere.example/hook"],
      ...["--db", db],
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--url (PLANT_STORE_ENDPOINT_URL): must not contain credentials");
    expect(refused.stderr).not.toContain("hunter2-password");
    const missing = await runCli(["endpoints", "set-url", "999", "--url", "https://x.example/", "--db", db]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("No endpoint 999");
    const moved = await cliJson<{ endpoint: { id: number; url: string; verified: boolean } }>([
      ...["endpoints", "set-url", "1", "--url", "https://moved.example/plant/webhook", "--db", db],
    ]);
    expect(moved.endpoint).toEqual(
      expect.objectContaining({ id: 1, url: "https://moved.example/plant/webhook", verified: true }),
    );
  });

  it("accepts every visible ASCII character in a token", async () => {
    const every = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join("");
    const result = await runCli(["endpoints", "set-token", "1", "--token", every, "--db", db]);
    expect(result.code, result.stderr).toBe(0);
  });
});
