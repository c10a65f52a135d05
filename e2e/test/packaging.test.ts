import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestVectorVerdict, vectors } from "@plant-store/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerPackageJson, consumerSource, consumerTsconfig } from "./fixtures/consumer-project.js";
import {
  bin,
  packPublishedPackages,
  publishedPackages,
  run,
  workspaceRoot,
} from "./fixtures/published-packages.js";

// A stranger's view: the packed tarballs, installed with plain npm into a project outside the
// workspace (so nothing resolves through the workspace's node_modules), compiled with tsc and run.
// Workspace-only paths, files missing from `files` or dev-only dependencies break it.
/** How @plant-store/receiver names each verdict of the spec's vectors. */
const receiverCode: Record<TestVectorVerdict, string> = {
  valid: "valid",
  "no-matching-signature": "ERR_INVALID_SIGNATURE",
  "timestamp-too-old": "ERR_TIMESTAMP_OUT_OF_TOLERANCE",
  "timestamp-too-new": "ERR_TIMESTAMP_OUT_OF_TOLERANCE",
};

let scratch: string;
let project: string;
/** The TypeScript examples in the READMEs we own, as shipped in the tarballs. */
const readmeExamples: string[] = [];
const packagesWithRunnableReadmes = ["@plant-store/spec", "@plant-store/types"];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "plant-store-packaging-"));
  expect(scratch.startsWith(workspaceRoot)).toBe(false);
  const tarballs = await packPublishedPackages(scratch);
  project = join(scratch, "consumer");
  await mkdir(join(project, "src"), { recursive: true });
  await writeFile(join(project, "package.json"), consumerPackageJson(tarballs));
  await writeFile(join(project, "tsconfig.json"), consumerTsconfig);
  await writeFile(join(project, "src", "consumer.ts"), consumerSource);
  // The registry serves only koa, zod, got & co.; the @plant-store packages come from the tarballs.
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
    cwd: project,
    env: { ...process.env, npm_config_workspaces: "false" },
  });
  for (const name of packagesWithRunnableReadmes) {
    const readme = await readFile(join(project, "node_modules", name, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
    for (const [index, code] of blocks.entries()) {
      const file = `readme-${name.split("/")[1]}-${index + 1}`;
      await writeFile(join(project, "src", `${file}.ts`), code);
      readmeExamples.push(file);
    }
  }
}, 300_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("the published packages, installed from tarballs with npm", () => {
  it("installs the tarballs themselves, once each, not registry copies", async () => {
    const lock = JSON.parse(await readFile(join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; resolved?: string }>;
    };
    for (const { name } of publishedPackages) {
      const copies = Object.entries(lock.packages).filter(([path]) => path.endsWith(`node_modules/${name}`));
      expect(copies.map(([path]) => path)).toStrictEqual([`node_modules/${name}`]);
      expect(copies[0]?.[1].resolved, name).toMatch(/^file:.*\.tgz$/);
    }
  });

  it("type-check a strict TypeScript consumer with tsc, and it compiles", async () => {
    const result = await run(bin("tsc"), ["-p", "tsconfig.json"], { cwd: project }).catch(
      (error: { stdout?: string; stderr?: string }) => ({
        stdout: error.stdout ?? "",
        stderr: error.stderr ?? "failed",
      }),
    );
    expect(`${result.stdout}${result.stderr}`).toBe("");
  });

  it("finds the README examples of spec and types", () => {
    expect(readmeExamples.length).toBeGreaterThanOrEqual(4);
  });

  it("runs every README example of spec and types (compiled by the tsc step above)", async () => {
    for (const example of readmeExamples) {
      const result = await run(process.execPath, [join(project, "dist", `${example}.js`)], { cwd: project });
      expect(result.stderr, example).toBe("");
    }
  });

  it("receive a webhook signed and delivered by the sender through the receiver mounted in Koa", async () => {
    const { stdout } = await run(process.execPath, [join(project, "dist", "consumer.js")], {
      cwd: project,
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toStrictEqual({
      contractVersion: "1.0.0",
      title: "OpenAPI Plant Store",
      documentTitle: "OpenAPI Plant Store",
      newPlantSchema: "https://json-schema.org/draft/2020-12/schema",
      vectorsReproduced: true,
      vectorVerdicts: Object.fromEntries(vectors.map((v) => [v.name, receiverCode[v.expected]])),
      statuses: [200, 401],
      received: [
        { plant: { id: 42, name: "Monstera deliciosa", tag: "tropical" }, webhookId: "msg_consumer_1" },
      ],
    });
  });
});
