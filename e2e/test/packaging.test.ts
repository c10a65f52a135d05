import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createDeliveryClient, deliver, signDelivery } from "@plant-store/sender";
import { type TestVectorVerdict, vectors } from "@plant-store/spec";
import { startPostgres, startTestReceiver, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  consumerPackageJson,
  consumerSource,
  consumerTsconfig,
  transactionalConsumerSource,
} from "./fixtures/consumer-project.js";
import {
  bin,
  packPublishedPackages,
  publishedPackages,
  run,
  workspaceRoot,
} from "./fixtures/published-packages.js";
import { runReadmeExample } from "./fixtures/run-readme-example.js";

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
/** A throwaway PostgreSQL for the README's PostgreSQL example and the transactional consumer. */
let postgres: TestPostgres;
/** The TypeScript and JavaScript examples of the READMEs, as shipped in the tarballs. */
const readmeExamples: Array<{ file: string; source: string }> = [];
const packagesWithRunnableReadmes = [
  "@plant-store/spec",
  "@plant-store/types",
  "@plant-store/receiver",
  "@plant-store/sender",
];
/** The workspace's better-sqlite3, built for this Node: the consumer gets the same version. */
const betterSqlite3Dir = dirname(createRequire(import.meta.url).resolve("better-sqlite3/package.json"));

beforeAll(async () => {
  postgres = await startPostgres();
  scratch = await mkdtemp(join(tmpdir(), "plant-store-packaging-"));
  expect(scratch.startsWith(workspaceRoot)).toBe(false);
  const tarballs = await packPublishedPackages(scratch);
  project = join(scratch, "consumer");
  await mkdir(join(project, "src"), { recursive: true });
  const betterSqlite3 = JSON.parse(await readFile(join(betterSqlite3Dir, "package.json"), "utf8")) as {
    version: string;
  };
  await writeFile(join(project, "package.json"), consumerPackageJson(tarballs, betterSqlite3.version));
  await writeFile(join(project, "tsconfig.json"), consumerTsconfig);
  await writeFile(join(project, "src", "consumer.ts"), consumerSource);
  await writeFile(join(project, "src", "enqueue-in-transaction.ts"), transactionalConsumerSource);
  // The registry serves only koa, zod, got & co.; the @plant-store packages come from the tarballs.
  // Install scripts are skipped: better-sqlite3's would compile it from source for a minute where no
  // prebuilt binary can be downloaded. The workspace's binary of the same version stands in for the
  // prebuilt one (none of our packages has an install script).
  await run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", "--loglevel=error"],
    { cwd: project, env: { ...process.env, npm_config_workspaces: "false" } },
  );
  const binary = join("build", "Release", "better_sqlite3.node");
  await mkdir(join(project, "node_modules", "better-sqlite3", "build", "Release"), { recursive: true });
  await copyFile(join(betterSqlite3Dir, binary), join(project, "node_modules", "better-sqlite3", binary));
  for (const name of packagesWithRunnableReadmes) {
    const readme = await readFile(join(project, "node_modules", name, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)].map((match) => match[1] as string);
    for (const [index, code] of blocks.entries()) {
      const file = `readme-${name.split("/")[1]}-${index + 1}`;
      await writeFile(join(project, "src", `${file}.ts`), code);
      readmeExamples.push({ file, source: code });
    }
  }
}, 300_000);

afterAll(async () => {
  await postgres?.stop();
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

  it("finds the README examples of every published package", () => {
    for (const name of packagesWithRunnableReadmes) {
      const prefix = `readme-${name.split("/")[1]}-`;
      expect(readmeExamples.filter(({ file }) => file.startsWith(prefix)).length, name).toBeGreaterThan(0);
    }
    expect(readmeExamples.length).toBeGreaterThanOrEqual(9);
  });

  // Scripts run to completion; a server is started, answers one signed delivery and is stopped; a
  // service (the sender's worker) is started, reports its first attempt and stops on SIGTERM.
  it("runs every README example (compiled by the tsc step above): scripts, servers and services", async () => {
    const token = "readme-example-token";
    const secret = generateWebhookSecret();
    const kinds = new Set<string>();
    for (const { file, source } of readmeExamples) {
      const cwd = await mkdtemp(join(scratch, `${file}-`));
      const result = await runReadmeExample({
        file: join(project, "dist", `${file}.js`),
        source,
        cwd,
        env: {
          ...process.env,
          PLANT_TOKEN: token,
          PLANT_SECRET: secret,
          DATABASE_URL: await postgres.createDatabase(),
        },
        request: async (port) => {
          const body = JSON.stringify({ id: 7, name: "Ficus lyrata" });
          const client = createDeliveryClient();
          try {
            const result = await deliver(client, `http://127.0.0.1:${port}/plant/webhook`, {
              body,
              headers: signDelivery({ webhookId: "msg_readme_1", body, secrets: [secret], token }),
            });
            return { status: result.status ?? 0, body: result.responseBody ?? String(result.error) };
          } finally {
            client.close();
          }
        },
      });
      kinds.add(result.kind);
      const context = `${file}: ${JSON.stringify(result)}`;
      expect(result.stderr, context).toBe("");
      if (result.kind === "script") expect(result.code, context).toBe(0);
      if (result.kind === "server") {
        expect(result.answer?.status, context).toBe(200);
        // Stopped by the test: a clean exit, or the SIGTERM itself when the example installs no handler.
        expect(result.code === 0 || result.signal === "SIGTERM", context).toBe(true);
      }
      if (result.kind === "service") {
        expect(result.stdout, context).not.toBe("");
        expect(result.code, context).toBe(0);
      }
    }
    expect([...kinds].sort()).toStrictEqual(["script", "server", "service"]);
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

  describe("a team's service that queues the webhook in its own transaction", () => {
    it.each([
      ["SQLite", async () => `sqlite:${join(await mkdtemp(join(scratch, "orders-")), "orders.db")}`],
      ["PostgreSQL", async () => postgres.createDatabase()],
    ])(
      "on %s: the receiver sees exactly the committed message, never the rolled-back one",
      async (_name, target) => {
        const receiver = await startTestReceiver();
        const secret = generateWebhookSecret();
        try {
          const { stdout } = await run(
            process.execPath,
            [
              join(project, "dist", "enqueue-in-transaction.js"),
              await target(),
              `${receiver.url}/plant/webhook`,
              secret,
            ],
            { cwd: project, timeout: 60_000 },
          );
          const result = JSON.parse(stdout) as { queued: string[]; deliveries: Array<[string, string]> };
          expect(result.queued).toHaveLength(1);
          expect(result.deliveries).toStrictEqual([[result.queued[0], "delivered"]]);
          expect(receiver.requests.map((request) => request.headers["webhook-id"])).toStrictEqual(
            result.queued,
          );
          expect(JSON.parse(receiver.requests[0]?.body ?? "null")).toMatchObject({ name: "Committed" });
        } finally {
          await receiver.close();
        }
      },
    );
  });
});
