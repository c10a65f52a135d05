import { execFile, spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { waitFor } from "@plant-store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningApi, startApi } from "../fixtures/start-api.js";

// Every `npx plant-webhooks …` line of the README's shell blocks, run as written by the bin (the
// consumer project of e2e/ runs the `generate` lines again from the published tarball): the API's
// commands with PLANT_WEBHOOKS_API and PLANT_WEBHOOKS_TOKEN set, as the README says to.
const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(packageDir, "dist/cli.js");
let api: RunningApi;
let dir: string;
let commands: string[];

beforeAll(async () => {
  const readme = await readFile(join(packageDir, "README.md"), "utf8");
  commands = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((match) => (match[1] as string).split("\n"))
    .filter((line) => line.startsWith("npx plant-webhooks "));
  api = await startApi();
  dir = await mkdtemp(join(tmpdir(), "plant-webhooks-readme-"));
  // What the generate lines read and write: the README's openapi.json and src/.
  await copyFile(join(packageDir, "test/fixtures/orders-openapi.json"), join(dir, "openapi.json"));
  await mkdir(join(dir, "src"));
});

afterAll(async () => {
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The line as a shell runs it, with `npx plant-webhooks` the package's own bin. */
const asShell = (line: string) => line.replace(/^npx plant-webhooks /, `"${process.execPath}" "${bin}" `);

describe("the README's commands", () => {
  it("run as written: generate, listen (stopped with Ctrl-C), and every API command in order", async () => {
    expect(commands.filter((line) => line.startsWith("npx plant-webhooks generate ")).length).toBe(2);
    expect(commands.length).toBeGreaterThanOrEqual(12);
    const env = { ...process.env, PLANT_WEBHOOKS_API: api.url, PLANT_WEBHOOKS_TOKEN: api.operatorToken };
    for (const line of commands) {
      if (line.startsWith("npx plant-webhooks listen ")) {
        const child = spawn("sh", ["-c", `exec ${asShell(line)}`], {
          cwd: dir,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
        });
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          err += chunk;
        });
        const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
        await waitFor(
          () => (out.includes("Ctrl-C stops listening") || child.exitCode !== null ? true : undefined),
          20_000,
        );
        child.kill("SIGINT");
        expect({ line, code: await exited, err }).toStrictEqual({ line, code: 0, err: "" });
        expect(out).toMatch(/^Listening: temporary endpoint #\d+ /);
        continue;
      }
      const result = await run("sh", ["-c", asShell(line)], { cwd: dir, env }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect({ line, code: result.code, stderr: result.stderr }).toStrictEqual({ line, code: 0, stderr: "" });
    }
    // What the commands did, seen through the API: the endpoint is gone, its message was sent once.
    const answer = await fetch(`${api.url}/endpoints`, {
      headers: { authorization: `Bearer ${api.operatorToken}` },
    });
    expect(await answer.json()).toStrictEqual({ endpoints: [] });
    expect(await readFile(join(dir, "src/webhooks.ts"), "utf8")).toContain("export const catalog");
  });
});
