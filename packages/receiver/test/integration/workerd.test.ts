import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adapterSuite, keyPair } from "../fixtures/adapter-suite.js";

// The fetch handler as Cloudflare would run it: bundled into one Worker module the way wrangler
// does (esbuild, `workerd`/`worker`/`browser` conditions, so `@plant-store/types` resolves to its Web
// Crypto build) and run inside workerd by miniflare, without `nodejs_compat`: any Node built-in on
// the import path would fail to load.
let mf: Miniflare;
let origin: string;
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plant-worker-"));
  const outfile = join(dir, "worker.js");
  await build({
    entryPoints: [fileURLToPath(new URL("../fixtures/vector-worker.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    target: "es2022",
    outfile,
    logLevel: "silent",
  });
  const { readFile } = await import("node:fs/promises");
  bundle = await readFile(outfile, "utf8");
  mf = new Miniflare({
    // Given as contents: a path outside the working directory is one workerd refuses to load.
    modules: [{ type: "ESModule", path: "worker.js", contents: bundle }],
    compatibilityDate: "2025-06-01",
    bindings: { PUBLIC_KEY: keyPair.publicKey },
    host: "127.0.0.1",
    port: 0,
  });
  origin = (await mf.ready).origin;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe("the Worker bundle", () => {
  it("holds the Web Crypto build and no Node built-in", () => {
    expect(bundle).toContain("crypto.subtle");
    expect(bundle).not.toMatch(/from\s*["']node:|require\(["']node:|["']node:crypto["']/);
  });
});

describe("createFetchHandler in workerd", () => {
  adapterSuite(() => origin, { onNode: false });
});

describe("createFetchHandler in a Hono app in workerd", () => {
  adapterSuite(() => `${origin}/hono`, { onNode: false });
});
