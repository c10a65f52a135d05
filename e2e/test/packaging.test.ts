import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, startTestReceiver, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectConsumerReceives,
  expectReadmeExamplesFound,
  expectReadmeExamplesRun,
  typeCheckConsumer,
  typeChecked,
} from "./fixtures/expect-consumer-project.js";
import { installExpressConsumer } from "./fixtures/express-consumer-project.js";
import { installConsumerProject, type ReadmeExample } from "./fixtures/install-consumer-project.js";
import { packedTarballs } from "./fixtures/packed-tarballs.js";
import {
  type PublishedPackageName,
  publishedPackages,
  run,
  workspaceRoot,
} from "./fixtures/published-packages.js";
import { runReadmeExample } from "./fixtures/run-readme-example.js";

// A stranger's view: the packed tarballs, installed with plain npm into a project outside the
// workspace (so nothing resolves through the workspace's node_modules), compiled with tsc and run.
// Workspace-only paths, files missing from `files` or dev-only dependencies break it.
let scratch: string;
let project: string;
/** A throwaway PostgreSQL for the README's PostgreSQL example and the transactional consumer. */
let postgres: TestPostgres;
/** The TypeScript and JavaScript examples of the READMEs, as shipped in the tarballs. */
let readmeExamples: ReadmeExample[] = [];
let tarballs: Record<PublishedPackageName, string>;
/** The Express project (issue 24), installed beside the main consumer: its error, if any, once done. */
let express: string;
let expressInstalled: Promise<unknown>;

beforeAll(async () => {
  postgres = await startPostgres();
  scratch = await mkdtemp(join(tmpdir(), "plant-store-packaging-"));
  expect(scratch.startsWith(workspaceRoot)).toBe(false);
  tarballs = await packedTarballs();
  project = join(scratch, "consumer");
  // Both npm installs at once: each waits on the registry and the disk more than it computes. The
  // Express project's is awaited (and its failure thrown) by its own beforeAll.
  express = join(scratch, "express-consumer");
  expressInstalled = installExpressConsumer(express, tarballs).then(
    () => undefined,
    (error: unknown) => error ?? new Error("the Express consumer's install failed"),
  );
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
  // Never removed under an install still running (the main one failed first).
  await expressInstalled;
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

  it(`${typeChecked ? "type-check" : "emit (type-checked on the machine's Node)"} a strict TypeScript consumer with tsc, and it compiles`, async () => {
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

  it("runs the sender's quick start twice on one database: one endpoint, each message delivered once", async () => {
    const quickStart = readmeExamples.find((example) => example.file === "readme-sender-1");
    expect(quickStart?.source).toContain("ensureEndpoint");
    const receiver = await startTestReceiver();
    const cwd = await mkdtemp(join(scratch, "quick-start-"));
    try {
      for (let start = 1; start <= 2; start++) {
        const result = await runReadmeExample({
          file: join(project, "dist", "readme-sender-1.js"),
          source: quickStart?.source ?? "",
          cwd,
          env: {
            ...process.env,
            // Only the URL is set: the token and the secret are the README's own placeholders, as a reader
            // who copies the file runs it (a placeholder the queue refuses crashed the example once).
            RECEIVER_URL: `${receiver.url}/plant/webhook`,
          },
        });
        expect(result, JSON.stringify(result)).toMatchObject({ kind: "service", stderr: "" });
        await receiver.waitForRequests(start);
      }
      const ids = receiver.requests.map((request) => request.headers["webhook-id"]);
      expect(ids).toHaveLength(2);
      expect(new Set(ids).size).toBe(2);
      const db = new Database(join(cwd, "shop.db"), { readonly: true });
      try {
        expect(db.prepare("SELECT count(*) FROM webhook_endpoints").pluck().get()).toBe(1);
        expect(db.prepare("SELECT status FROM webhook_deliveries ORDER BY id").pluck().all()).toStrictEqual([
          "delivered",
          "delivered",
        ]);
      } finally {
        db.close();
      }
    } finally {
      await receiver.close();
    }
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
      "on %s: the receiver sees exactly the committed message, never the rolled-back one; a reused key with another payload is refused",
      async (name, target) => {
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
          const result = JSON.parse(stdout) as {
            queued: string[];
            deliveries: Array<[string, string]>;
            inTransaction: string;
            sameKey: [boolean, boolean];
            conflict: string;
          };
          expect(result.queued).toHaveLength(1);
          // An async enqueue inside an open better-sqlite3 transaction throws at once (PostgreSQL has none).
          expect(result.inTransaction).toBe(name === "SQLite" ? "ERR_OUTBOX_IN_TRANSACTION" : "");
          // A reused key: the same payload is the first message; another payload the typed error.
          expect(result.sameKey).toStrictEqual([true, true]);
          expect(result.conflict).toBe("ERR_IDEMPOTENCY_CONFLICT");
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

  // Issue 24: Koa only for Koa users. The same tarballs in an Express team's project.
  describe("in an Express project with only express and the tarballs", () => {
    beforeAll(async () => {
      const failed = await expressInstalled;
      if (failed !== undefined) throw failed;
    }, 120_000);

    it("installs neither koa nor @koa/router nor @types/koa", () => {
      for (const name of ["koa", "@koa/router", "@types/koa"]) {
        expect(existsSync(join(express, "node_modules", name)), name).toBe(false);
      }
      expect(existsSync(join(express, "node_modules", "@plant-store", "receiver"))).toBe(true);
    });

    it(`compiles with tsc (strict, skipLibCheck false${typeChecked ? "" : ", emit only"}) and receives a New Plant through the node middleware`, async () => {
      expect(await typeCheckConsumer(express)).toBe("");
      const { stdout } = await run(process.execPath, [join(express, "dist", "receive.js")], {
        cwd: express,
        timeout: 30_000,
      });
      expect(JSON.parse(stdout)).toStrictEqual({
        status: 200,
        answered: { received: true, duplicate: false },
        received: [{ id: 7, name: "Ficus lyrata", tag: "indoor" }],
        outcomes: [{ outcome: "received", webhookId: "msg_express_1" }],
        fetchHandler: "function",
        // Only the Koa entry needs Koa: without it, that import (and no other) fails.
        koaEntry: "ERR_MODULE_NOT_FOUND",
      });
    });
  });
});
