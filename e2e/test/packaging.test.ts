import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, startTestReceiver, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectConsumerReceives,
  expectReadmeExamplesFound,
  expectReadmeExamplesRun,
  typeCheckConsumer,
} from "./fixtures/expect-consumer-project.js";
import { installConsumerProject, type ReadmeExample } from "./fixtures/install-consumer-project.js";
import {
  packPublishedPackages,
  publishedPackages,
  run,
  workspaceRoot,
} from "./fixtures/published-packages.js";

// A stranger's view: the packed tarballs, installed with plain npm into a project outside the
// workspace (so nothing resolves through the workspace's node_modules), compiled with tsc and run.
// Workspace-only paths, files missing from `files` or dev-only dependencies break it.
let scratch: string;
let project: string;
/** A throwaway PostgreSQL for the README's PostgreSQL example and the transactional consumer. */
let postgres: TestPostgres;
/** The TypeScript and JavaScript examples of the READMEs, as shipped in the tarballs. */
let readmeExamples: ReadmeExample[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  scratch = await mkdtemp(join(tmpdir(), "plant-store-packaging-"));
  expect(scratch.startsWith(workspaceRoot)).toBe(false);
  const tarballs = await packPublishedPackages(scratch);
  project = join(scratch, "consumer");
  // The registry serves only koa, zod, got & co.; the @plant-store packages come from the tarballs.
  readmeExamples = await installConsumerProject({
    dir: project,
    packages: Object.fromEntries(
      Object.entries(tarballs).map(([name, tarball]) => [name, `file:${tarball}`]),
    ) as typeof tarballs,
  });
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
    expect(await typeCheckConsumer(project)).toBe("");
  });

  it("finds the README examples of every published package", () => {
    expectReadmeExamplesFound(readmeExamples);
  });

  // Scripts run to completion; a server is started, answers one signed delivery and is stopped; a
  // service (the sender's worker) is started, reports its first attempt and stops on SIGTERM.
  it("runs every README example (compiled by the tsc step above): scripts, servers and services", async () => {
    await expectReadmeExamplesRun(project, scratch, readmeExamples, () => postgres.createDatabase());
  });

  it("receive a webhook signed and delivered by the sender through the receiver mounted in Koa", async () => {
    await expectConsumerReceives(project);
  });

  it("runs plant-receiver-check from the installed tarball with npx, and judges a receiver that accepts everything", async () => {
    const receiver = await startTestReceiver();
    try {
      const result = await run(
        "npx",
        [
          ...["--no", "plant-receiver-check", `${receiver.url}/plant/webhook`],
          ...["--token", "packaging-token", "--secret", generateWebhookSecret(), "--json"],
        ],
        { cwd: project, env: { ...process.env, npm_config_workspaces: "false" }, timeout: 60_000 },
      ).catch((error: { code: number; stdout: string }) => error);
      // That receiver answers 200 to anything: every case about refusing fails, the rest pass.
      expect("code" in result ? result.code : 0).toBe(1);
      const report = JSON.parse(result.stdout) as { cases: Array<{ id: string; result: string }> };
      expect(report.cases.filter((c) => c.result === "fail").map((c) => c.id)).toStrictEqual([
        "timestamp-stale",
        "timestamp-future",
        "signature-wrong",
        "signature-truncated",
        "signature-missing",
        "signature-over-reserialised",
        "body-byte-changed",
        "token-missing",
        "token-wrong",
        "token-other-scheme",
        "payload-invalid",
        "body-too-large",
        "content-type-wrong",
      ]);
      expect(new Set(receiver.requests.map((request) => request.path))).toStrictEqual(
        new Set(["/plant/webhook"]),
      );
    } finally {
      await receiver.close();
    }
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
