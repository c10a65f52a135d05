import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createFetchHandler, createNodeMiddleware, type ReceiverOptions } from "@plant-store/receiver";
import { createPlantWebhookMiddleware, createPlantWebhookRouter } from "@plant-store/receiver/koa";
import { generateWebhookKeyPair, generateWebhookSecret } from "@plant-store/types";
import { build } from "esbuild";
import Koa from "koa";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CheckReport, runReceiverCheck } from "../../src/index.js";

// Every receiver adapter of ours, as a team mounts it, passes every case: two whsec_ secrets (the
// second for `every-key`) and a v1a key pair, so no case is skipped.
const token = "adapter-check-token";
const secret = generateWebhookSecret();
const nextSecret = generateWebhookSecret();
const keyPair = generateWebhookKeyPair();
const receiverOptions = (): ReceiverOptions => ({
  tokens: [token],
  secrets: [secret, nextSecret, keyPair.publicKey],
  onNewPlant: () => undefined,
});
const checkKeys = [secret, nextSecret, keyPair.signingKey];

const servers: Server[] = [];
let mf: Miniflare | undefined;

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/plant/webhook`;
}

function expectEveryCasePassed(report: CheckReport): void {
  expect(
    report.cases.filter((c) => c.result !== "pass"),
    "cases that did not pass",
  ).toStrictEqual([]);
  expect(report.ok).toBe(true);
  // One request per case (every-key: the one other secret), none for answer-time, which reads the others.
  expect(report.cases.filter((c) => c.requests !== 1).map((c) => [c.id, c.requests])).toStrictEqual([
    ["answer-time", 0],
  ]);
}

afterAll(async () => {
  await mf?.dispose();
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

describe("plant-receiver-check against our adapters", () => {
  it("the Koa router passes every case", async () => {
    const router = createPlantWebhookRouter(receiverOptions());
    const app = new Koa().use(router.routes()).use(router.allowedMethods());
    const url = await listen(createServer(app.callback()));
    expectEveryCasePassed(await runReceiverCheck({ url, token, secrets: checkKeys }));
  });

  it("the Koa middleware passes every case", async () => {
    const app = new Koa().use(createPlantWebhookMiddleware(receiverOptions()));
    const url = await listen(createServer(app.callback()));
    expectEveryCasePassed(await runReceiverCheck({ url, token, secrets: checkKeys }));
  });

  it("the node:http middleware passes every case", async () => {
    const url = await listen(createServer(createNodeMiddleware(receiverOptions())));
    expectEveryCasePassed(await runReceiverCheck({ url, token, secrets: checkKeys }));
  });

  it("the fetch handler called in-process (the `fetch` option, no socket) passes every case", async () => {
    const handler = createFetchHandler(receiverOptions());
    expectEveryCasePassed(
      await runReceiverCheck({
        url: "http://receiver.invalid/plant/webhook",
        token,
        secrets: checkKeys,
        fetch: handler,
      }),
    );
  });

  describe("the fetch handler in workerd", () => {
    let origin: string;

    beforeAll(async () => {
      // Bundled as wrangler does (so @plant-store/types resolves to its Web Crypto build), no nodejs_compat.
      const bundled = await build({
        entryPoints: [fileURLToPath(new URL("../fixtures/check-worker.ts", import.meta.url))],
        bundle: true,
        format: "esm",
        platform: "neutral",
        conditions: ["workerd", "worker", "browser"],
        mainFields: ["module", "main"],
        target: "es2022",
        write: false,
        logLevel: "silent",
      });
      mf = new Miniflare({
        modules: [{ type: "ESModule", path: "worker.js", contents: bundled.outputFiles[0]?.text ?? "" }],
        compatibilityDate: "2025-06-01",
        bindings: { TOKEN: token, SECRETS: [secret, nextSecret, keyPair.publicKey].join(",") },
        host: "127.0.0.1",
        port: 0,
      });
      origin = (await mf.ready).origin;
    }, 60_000);

    it("passes every case", async () => {
      expectEveryCasePassed(
        await runReceiverCheck({ url: `${origin}/plant/webhook`, token, secrets: checkKeys }),
      );
    });
  });
});
