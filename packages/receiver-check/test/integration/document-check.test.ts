import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createFetchHandler, createNodeMiddleware, createWebhookReceiver } from "@plant-store/receiver";
import { createWebhookCatalog, generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHECK_EXIT,
  type CheckReport,
  InvalidCheckOptionsError,
  runCheckCli,
  runReceiverCheck,
} from "../../src/index.js";
import {
  type DocumentFlaw,
  type DocumentReceivers,
  ordersDocument,
  ordersDocumentPath,
  startDocumentReceivers,
} from "../fixtures/start-document-receivers.js";

// A team's own document (three webhooks, $refs, enums, patterns, date-time, additionalProperties:
// false), its webhooks named as the toolkit names them, whatever that rule is: the catalog says.
const [created, shipped, paid] = createWebhookCatalog(ordersDocument).eventTypes as [string, string, string];
const run = promisify(execFile);
const specPath = fileURLToPath(ordersDocumentPath);
const yamlPath = fileURLToPath(new URL("../fixtures/orders-webhooks.yaml", import.meta.url));
const token = "orders-receiver-token";
const secret = generateWebhookSecret();
let receivers: DocumentReceivers;

beforeAll(async () => {
  // invoice.paid's security is [] in the document: its receiver asks for no token.
  receivers = await startDocumentReceivers({ [created]: token, [shipped]: token }, secret);
});

afterAll(async () => {
  await receivers?.close();
});

const failedIds = (report: CheckReport) => report.cases.filter((c) => c.result === "fail").map((c) => c.id);
const skippedIds = (report: CheckReport) => report.cases.filter((c) => c.result === "skip").map((c) => c.id);

// The receiver verifies with the reference library's verify(), which also checks the timestamp's
// window: removing its signature check removes both, so these and only these rows fail.
const SIGNATURE_ROWS = [
  "timestamp-stale",
  "timestamp-future",
  "signature-wrong",
  "signature-truncated",
  "signature-missing",
  "signature-over-reserialised",
  "body-byte-changed",
];

describe("runReceiverCheck with spec: a receiver of a team's document", () => {
  it.each([
    [created, ["v1a", "every-key"]],
    // Built from the schema, so one valid body only.
    [shipped, ["every-example", "v1a", "every-key"]],
    [paid, ["every-example", "v1a", "every-key", "token-missing", "token-wrong", "token-other-scheme"]],
  ])("passes the correct receiver of %s with 0 failures", async (eventType, skipped) => {
    const report = await runReceiverCheck({
      url: receivers.url("none", eventType),
      spec: specPath,
      eventType,
      ...(eventType === paid ? {} : { token }),
      secrets: [secret],
    });
    expect(failedIds(report), JSON.stringify(report.cases.filter((c) => c.result === "fail"))).toStrictEqual(
      [],
    );
    expect(report.ok).toBe(true);
    expect(report.eventType).toBe(eventType);
    expect(skippedIds(report)).toStrictEqual(skipped);
    // The derived invalid payloads were sent, and refused.
    for (const id of ["payload-required-missing", "payload-wrong-type", "payload-outside-enum"])
      expect(report.cases.find((c) => c.id === id)).toMatchObject({
        result: "pass",
        expected: "400",
        got: "400",
      });
    expect(report.cases.map((c) => c.id)).not.toContain("payload-invalid");
  });

  it("fails exactly the signature (and timestamp) rows when the receiver's signature check is removed", async () => {
    const report = await runReceiverCheck({
      url: receivers.url("no-signature-check", created),
      spec: specPath,
      eventType: created,
      token,
      secrets: [secret],
    });
    expect(report.ok).toBe(false);
    expect(failedIds(report)).toStrictEqual(SIGNATURE_ROWS);
  });

  it.each<[DocumentFlaw, string, string[]]>([
    ["no-signature-check", paid, SIGNATURE_ROWS],
    ["no-bearer-check", created, ["token-missing", "token-wrong", "token-other-scheme"]],
    // additionalProperties: false makes the unknown fields an invalid payload too.
    [
      "200-on-invalid-payload",
      created,
      ["unknown-fields", "payload-required-missing", "payload-wrong-type", "payload-outside-enum"],
    ],
    [
      "200-on-invalid-payload",
      paid,
      ["payload-required-missing", "payload-wrong-type", "payload-outside-enum"],
    ],
  ])("a receiver with %s fails, for %s, exactly %j", async (flaw, eventType, failures) => {
    const report = await runReceiverCheck({
      url: receivers.url(flaw, eventType),
      spec: ordersDocument,
      eventType,
      ...(eventType === paid ? {} : { token }),
      secrets: [secret],
    });
    expect(failedIds(report), JSON.stringify(report.cases.filter((c) => c.result === "fail"))).toStrictEqual(
      failures,
    );
  });

  it("sends no Authorization to a webhook without security, even when a token is given, and webhook-event-type always", async () => {
    const before = receivers.received.length;
    const report = await runReceiverCheck({
      url: receivers.url("none", paid),
      spec: specPath,
      eventType: paid,
      token,
      secrets: [secret],
    });
    expect(report.ok).toBe(true);
    expect(report.cases.find((c) => c.id === "token-missing")).toMatchObject({
      result: "skip",
      got: `the document asks no token for ${paid}: none sent`,
    });
    const sent = receivers.received.slice(before);
    expect(sent).toHaveLength(report.requests);
    expect(sent.filter((r) => r.authorization !== undefined)).toStrictEqual([]);
    expect(new Set(sent.map((r) => r.eventType))).toStrictEqual(new Set([paid]));
  });

  it("refuses at once, sending nothing, when the webhook asks for a token and none is given", async () => {
    const before = receivers.received.length;
    const refused = await runReceiverCheck({
      url: receivers.url("none", created),
      spec: specPath,
      eventType: created,
      secrets: [secret],
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidCheckOptionsError);
    expect((refused as InvalidCheckOptionsError).problems).toStrictEqual([
      `token: ${created} asks for a bearer token (its security: bearerAuth): give the token its receiver accepts`,
    ]);
    expect(receivers.received.length).toBe(before);
  });

  it("names the document's webhooks when the event type is not one of them, or missing", async () => {
    const options = { url: receivers.url("none", created), spec: specPath, token, secrets: [secret] };
    const list = `(${[created, shipped, paid].join(", ")})`;
    await expect(runReceiverCheck({ ...options, eventType: "order.typo" })).rejects.toMatchObject({
      problems: [`eventType: "order.typo" is not a webhook of the document ${list}`],
    });
    await expect(runReceiverCheck(options)).rejects.toMatchObject({
      problems: [`eventType: the document has several webhooks: name one ${list}`],
    });
    await expect(runReceiverCheck({ ...options, spec: `${specPath}.missing` })).rejects.toMatchObject({
      problems: [`spec: cannot read ${specPath}.missing (ENOENT)`],
    });
  });
});

describe("runReceiverCheck with spec against the toolkit's own receiver of the document", () => {
  it("passes createWebhookReceiver's node:http middleware for each webhook that asks for a token, 0 failures", async () => {
    const handled: string[] = [];
    const receiver = createWebhookReceiver({
      catalog: createWebhookCatalog(ordersDocument),
      tokens: [token],
      secrets: [secret],
      handlers: {
        [created]: (_payload, context) => void handled.push(context.eventType),
        [shipped]: (_payload, context) => void handled.push(context.eventType),
      },
    });
    const server = createServer(createNodeMiddleware(receiver));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const eventType of [created, shipped]) {
        const report = await runReceiverCheck({
          url: `http://127.0.0.1:${port}${receiver.routes.find((r) => r.eventType === eventType)?.path}`,
          spec: specPath,
          eventType,
          token,
          secrets: [secret],
        });
        expect(
          failedIds(report),
          JSON.stringify(report.cases.filter((c) => c.result === "fail")),
        ).toStrictEqual([]);
      }
      // Every valid delivery reached its handler under its own type (retries and refusals did not).
      expect(new Set(handled)).toStrictEqual(new Set([created, shipped]));
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("runReceiverCheck with the Plant Store's own document as spec", () => {
  it("passes our New Plant fetch handler: the document mode agrees with the built-in contract", async () => {
    const plantToken = "plant-spec-token";
    const report = await runReceiverCheck({
      url: "http://receiver.test/plant/webhook",
      spec: fileURLToPath(new URL("../../../../spec/openapi.json", import.meta.url)),
      eventType: "newPlant",
      token: plantToken,
      secrets: [secret],
      fetch: createFetchHandler({ tokens: [plantToken], secrets: [secret], onNewPlant: () => undefined }),
    });
    expect(failedIds(report)).toStrictEqual([]);
    // Its examples are sent; New Plant has no enum to step outside of.
    expect(report.cases.find((c) => c.id === "every-example")?.result).toBe("pass");
    expect(skippedIds(report)).toStrictEqual(["v1a", "every-key", "payload-outside-enum"]);
  });
});

/** Runs the CLI in-process with its output captured. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCheckCli(argv, {
    stdout: { write: (text: string) => (stdout += text), columns: 140 },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe("plant-receiver-check --spec --event-type", () => {
  it("runs as the package's bin (dist/cli.js) with a YAML document, exit 1 naming the failed rows", async () => {
    const bin = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
    const failed = await run(process.execPath, [
      bin,
      receivers.url("no-bearer-check", shipped),
      ...["--spec", yamlPath, "--event-type", shipped, "--token", token, "--secret", secret],
    ]).catch((error: { code: number; stdout: string }) => error);
    expect("code" in failed ? failed.code : 0).toBe(CHECK_EXIT.failed);
    expect(failed.stdout).toContain("\nFailed: token-missing, token-wrong, token-other-scheme\n");
    // One process, a whole check: a limit for a loaded 2-core machine, not an assertion about speed.
  }, 30_000);

  it("reads a YAML document; --json lists each case and exits 0 for the correct receiver", async () => {
    const { code, stdout, stderr } = await cli([
      receivers.url("none", created),
      ...["--spec", yamlPath, "--event-type", created, "--token", token, "--secret", secret, "--json"],
    ]);
    expect({ code, stderr }).toStrictEqual({ code: CHECK_EXIT.ok, stderr: "" });
    const report = JSON.parse(stdout) as CheckReport;
    expect({ eventType: report.eventType, path: report.path }).toStrictEqual({
      eventType: created,
      path: receivers.catalog.get(created).path,
    });
    expect(report.cases.map((c) => [c.id, c.result])).toStrictEqual([
      ["valid", "pass"],
      ["duplicate", "pass"],
      ["every-example", "pass"],
      ["unknown-fields", "pass"],
      ["body-as-sent", "pass"],
      ["rotation", "pass"],
      ["v1a", "skip"],
      ["every-key", "skip"],
      ["timestamp-inside-past", "pass"],
      ["timestamp-inside-future", "pass"],
      ["timestamp-stale", "pass"],
      ["timestamp-future", "pass"],
      ["signature-wrong", "pass"],
      ["signature-truncated", "pass"],
      ["signature-missing", "pass"],
      ["signature-over-reserialised", "pass"],
      ["body-byte-changed", "pass"],
      ["token-missing", "pass"],
      ["token-wrong", "pass"],
      ["token-other-scheme", "pass"],
      ["payload-required-missing", "pass"],
      ["payload-wrong-type", "pass"],
      ["payload-outside-enum", "pass"],
      ["body-too-large", "pass"],
      ["content-type-wrong", "pass"],
      ["answer-time", "pass"],
    ]);
    expect(report.cases.find((c) => c.id === "payload-outside-enum")?.title).toBe(
      `a signed ${created} "total.currency" set to "EUR-outside-enum", outside its enum`,
    );
  });

  it("exits 1 and names the failed rows when the signature check is removed", async () => {
    const { code, stdout } = await cli([
      receivers.url("no-signature-check", created),
      ...["--spec", specPath, "--event-type", created, "--token", token, "--secret", secret],
    ]);
    expect(code).toBe(CHECK_EXIT.failed);
    expect(stdout).toContain(
      `Receiver check of ${receivers.url("no-signature-check", created)} (${created}; the toolkit's receivers take it at ${receivers.catalog.get(created).path})\n`,
    );
    expect(stdout).toContain(`\nFailed: ${SIGNATURE_ROWS.join(", ")}\n`);
    expect(stdout).toMatch(/: the receiver does NOT conform\n$/);
  });

  it("needs no --token for a webhook without security", async () => {
    const { code, stdout } = await cli([
      receivers.url("none", paid),
      ...["--spec", specPath, "--event-type", paid, "--secret", secret],
    ]);
    expect(code).toBe(CHECK_EXIT.ok);
    expect(stdout).toMatch(/0 failed, 6 skipped; \d+ requests in [\d.]+ s: the receiver conforms\n$/);
  });

  it("refuses a missing --token for a webhook that asks for one, and --event-type without --spec, exit 2", async () => {
    const missing = await cli([
      receivers.url("none", created),
      ...["--spec", specPath, "--event-type", created, "--secret", secret],
    ]);
    expect({ code: missing.code, stdout: missing.stdout }).toStrictEqual({
      code: CHECK_EXIT.usage,
      stdout: "",
    });
    expect(missing.stderr).toContain(
      `  --token (PLANT_RECEIVER_CHECK_TOKEN): ${created} asks for a bearer token (its security: bearerAuth): give the token its receiver accepts\n`,
    );
    const alone = await cli([
      receivers.url("none", created),
      "--event-type",
      created,
      "--token",
      token,
      "--secret",
      secret,
    ]);
    expect(alone.code).toBe(CHECK_EXIT.usage);
    expect(alone.stderr).toContain("  --event-type: names a webhook of a document: give spec (--spec) too\n");
  });
});
