import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const hooks = new URL("../fixtures/record-loaded-modules.mjs", import.meta.url).href;
const dist = (entry: string) => new URL(`../../dist/${entry}`, import.meta.url).href;

/** Runs a module in a fresh Node process and answers the URLs of the modules it loaded. */
function modulesLoadedBy(source: string): string[] {
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      `data:text/javascript,import{register}from"node:module";register(${JSON.stringify(hooks)});`,
      "--input-type=module",
      "--eval",
      source,
    ],
    { encoding: "utf8", cwd: fileURLToPath(new URL("../..", import.meta.url)) },
  );
  expect(result.status, result.stderr).toBe(0);
  return result.stderr
    .split("\n")
    .filter((line) => line.startsWith("loaded "))
    .map((line) => line.slice("loaded ".length));
}

const isGot = (url: string) => /\/node_modules\/got\//.test(url);

describe("got is loaded on the first delivery, not with the package", () => {
  it("is not loaded by importing the package, its SQLite outbox and a delivery client", () => {
    const loaded = modulesLoadedBy(
      `const s = await import(${JSON.stringify(dist("index.js"))}); await import(${JSON.stringify(dist("sqlite.js"))}); s.createDeliveryClient().close();`,
    );
    expect(loaded.some((url) => url.endsWith("/dist/index.js"))).toBe(true);
    expect(loaded.filter(isGot)).toEqual([]);
  });

  it("is loaded once the client is asked for it", () => {
    const loaded = modulesLoadedBy(
      `const s = await import(${JSON.stringify(dist("index.js"))}); const c = s.createDeliveryClient(); await c.load(); c.close();`,
    );
    expect(loaded.some(isGot)).toBe(true);
  });
});
