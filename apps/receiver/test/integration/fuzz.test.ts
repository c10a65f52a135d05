import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openRaw, type RawAnswer } from "@plant-store/testing";
import { ErrorBodySchema, generateWebhookSecret, NewPlantSchema, WebhookIdSchema } from "@plant-store/types";
import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningApp, startApp } from "../fixtures/start-app.js";

const token = "tok_fuzz_9d41c0a7e2";
const secret = generateWebhookSecret();
const otherSecret = generateWebhookSecret();
const dir = mkdtempSync(join(tmpdir(), "plant-receiver-fuzz-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Requests per round; two equal rounds, with the app's heap measured after each. */
const RUNS = 1500;
const MIB = 1024 * 1024;

type Framing = "exact" | "chunked" | "truncated" | "short" | "declared-huge" | "invalid-length";

interface FuzzRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: Uint8Array | { oversized: number };
  signature: "valid" | "none" | "other-secret" | "other-body" | "garbage";
  garbageSignature: string;
  timestampOffset: number | string | undefined;
  idKind: "fresh" | "none" | "garbage";
  garbageId: string;
  framing: Framing;
  extraHeaders: [string, string][];
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
});
const anyText = fc.string({ unit: "grapheme", maxLength: 80 });

/** Every C0 control character (NUL included) and DEL, among ordinary text: each string field gets them. */
const CONTROL_CHARACTERS = [...Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)), "\u007f"];
const controlText = fc.oneof(
  fc.constantFrom(...CONTROL_CHARACTERS),
  fc.string({
    unit: fc.oneof(fc.constantFrom(...CONTROL_CHARACTERS), fc.constantFrom("a", " ", "é", "🌼")),
    minLength: 1,
    maxLength: 24,
  }),
);

const plantJson = fc
  .record(
    {
      id: fc.oneof(fc.integer(), fc.maxSafeInteger()),
      name: fc.oneof({ weight: 3, arbitrary: fc.string({ unit: "grapheme", minLength: 1 }) }, controlText),
      tag: fc.oneof({ weight: 3, arbitrary: anyText }, controlText),
    },
    { requiredKeys: ["id", "name"] },
  )
  .map((plant) => utf8(JSON.stringify(plant)));

const body = fc.oneof(
  { weight: 8, arbitrary: plantJson },
  { weight: 3, arbitrary: fc.json().map(utf8) },
  { weight: 3, arbitrary: fc.uint8Array({ maxLength: 2048 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 512 }).map(utf8) },
  { weight: 1, arbitrary: plantJson.map((bytes) => bytes.subarray(0, Math.floor(bytes.length / 2))) },
  { weight: 1, arbitrary: fc.constant(new Uint8Array(0)) },
  // Over the 1 MiB limit: built when sent, so a failure report shows a size, not a megabyte of bytes.
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_048_577, max: 1_100_000 }).map((oversized) => ({ oversized })),
  },
);

const anyRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.oneof(
    { weight: 12, arbitrary: fc.constant("POST") },
    { weight: 3, arbitrary: fc.constantFrom("GET", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "post") },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z!#$%&'*+.^_`|~-]{1,12}$/) },
    { weight: 1, arbitrary: printable.filter((m) => m.length > 0 && !/\s/.test(m)) },
  ),
  path: fc.oneof(
    { weight: 12, arbitrary: fc.constant("/plant/webhook") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "/plant/webhook?x=1",
        "/plant/webhook/",
        "/PLANT/WEBHOOK",
        "//plant/webhook",
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom("/", "/plants?limit=-1", "/healthz", "/nope", "/%E0%A4%A", "*") },
    { weight: 1, arbitrary: anyText.map((t) => `/plant/webhook/${encodeURIComponent(t)}`) },
  ),
  authorization: fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(`Bearer ${token}`, `bearer ${token}`, `BEARER   ${token}  `) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.nat(token.length).map((n) => `Bearer ${token.slice(0, n)}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(`Basic ${token}`, `Bearer ${token}x`, `Bearer ${token.toUpperCase()}`),
    },
    { weight: 1, arbitrary: printable.map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: anyText },
  ),
  contentType: fc.oneof(
    {
      weight: 10,
      arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8", "Application/JSON"),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"),
    },
    { weight: 1, arbitrary: anyText },
  ),
  body,
  signature: fc.oneof(
    { weight: 10, arbitrary: fc.constant("valid" as const) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "none" as const,
        "other-secret" as const,
        "other-body" as const,
        "garbage" as const,
      ),
    },
  ),
  garbageSignature: fc.oneof(
    printable,
    fc.base64String().map((b) => `v1,${b}`),
    anyText,
  ),
  timestampOffset: fc.oneof(
    { weight: 10, arbitrary: fc.integer({ min: -240, max: 240 }) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.integer({ min: -10_000_000, max: -301 }),
        fc.integer({ min: 301, max: 10_000_000 }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(printable, fc.constant(undefined), fc.constant("1e9"), fc.constant("-5")),
    },
  ),
  idKind: fc.oneof(
    { weight: 10, arbitrary: fc.constant("fresh" as const) },
    { weight: 1, arbitrary: fc.constantFrom("none" as const, "garbage" as const) },
  ),
  garbageId: fc.oneof(anyText, fc.constant("a".repeat(300)), fc.constant("has space")),
  framing: fc.oneof(
    { weight: 12, arbitrary: fc.constant("exact" as const) },
    { weight: 3, arbitrary: fc.constant("chunked" as const) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "truncated" as const,
        "short" as const,
        "declared-huge" as const,
        "invalid-length" as const,
      ),
    },
  ),
  extraHeaders: fc.array(
    fc.oneof(
      { weight: 12, arbitrary: fc.tuple(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), anyText) },
      {
        weight: 4,
        arbitrary: fc.tuple(
          fc.constantFrom("webhook-id", "webhook-signature", "webhook-timestamp", "Authorization"),
          printable,
        ),
      },
      { weight: 1, arbitrary: fc.tuple(fc.constant("x-huge"), fc.constant("h".repeat(20_000))) },
    ),
    { maxLength: 3 },
  ),
});

/** Well-formed and correctly signed, with random plants and harmless extra headers. */
const validRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constant("POST"),
  path: fc.constant("/plant/webhook"),
  authorization: fc.constantFrom(`Bearer ${token}`, `bearer ${token}`),
  contentType: fc.constantFrom("application/json", "application/json; charset=utf-8"),
  body: plantJson,
  signature: fc.constant("valid" as const),
  garbageSignature: fc.constant(""),
  timestampOffset: fc.integer({ min: -240, max: 240 }),
  idKind: fc.constant("fresh" as const),
  garbageId: fc.constant(""),
  framing: fc.constantFrom("exact" as const, "chunked" as const),
  extraHeaders: fc.array(fc.tuple(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), printable), { maxLength: 3 }),
});

const request = fc.oneof({ weight: 1, arbitrary: validRequest }, { weight: 3, arbitrary: anyRequest });

interface Sent {
  id: string | undefined;
  /** Token, signature, timestamp and payload all check out: the only requests the handler may see. */
  verified: boolean;
  /** Verified and plainly well-formed: it must be answered 200 and stored once. */
  valid: boolean;
  /**
   * Authentic and well-formed, but `name` or `tag` holds NUL (U+0000), which the contract refuses:
   * these fields must be named in a 400 (PostgreSQL cannot store NUL; it was a 500 on every retry).
   */
  nulFields: string[];
  framing: Framing;
  method: string;
  signatureValue: string | undefined;
  mayGoUnanswered: boolean;
}

interface Tally {
  requests: number;
  answered: number;
  closedWithoutAnswer: number;
  fiveHundreds: number;
  byStatus: Record<number, number>;
}

function isNewPlant(bytes: Uint8Array): boolean {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return NewPlantSchema.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
}

/** `name` and `tag` when they are strings holding NUL: judged on the JSON itself, not by the schema. */
function fieldsWithNul(bytes: Uint8Array): string[] {
  try {
    const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
    if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
    const fields = value as Record<string, unknown>;
    return ["name", "tag"].filter(
      (f) => typeof fields[f] === "string" && (fields[f] as string).includes("\u0000"),
    );
  } catch {
    return [];
  }
}

let counter = 0;

/** Writes the request as raw bytes, so that nothing in between (fetch, undici) tidies it up. */
async function fire(app: RunningApp, r: FuzzRequest): Promise<{ sent: Sent; answer: RawAnswer }> {
  const id =
    r.idKind === "fresh"
      ? `fz_${process.pid}_${++counter}`
      : r.idKind === "garbage"
        ? r.garbageId
        : undefined;
  const now = Math.floor(Date.now() / 1000);
  const timestamp =
    typeof r.timestampOffset === "number" ? String(now + r.timestampOffset) : r.timestampOffset;
  const bytes = "oversized" in r.body ? new Uint8Array(r.body.oversized).fill(0x20) : r.body;
  const bodyText = Buffer.from(bytes).toString("utf8");
  const sign = (key: string, content: string) =>
    new Webhook(key).sign(id ?? "", new Date(Number(timestamp) * 1000), content);
  let signatureValue: string | undefined;
  const canSign = id !== undefined && timestamp !== undefined && /^\d+$/.test(timestamp);
  if (r.signature === "valid" && canSign) signatureValue = sign(secret, bodyText);
  else if (r.signature === "other-secret" && canSign) signatureValue = sign(otherSecret, bodyText);
  else if (r.signature === "other-body" && canSign) signatureValue = sign(secret, `${bodyText} `);
  else if (r.signature === "garbage") signatureValue = r.garbageSignature;

  const headers: [string, string][] = [
    ["Host", "127.0.0.1"],
    ["Connection", "close"],
  ];
  if (r.authorization !== undefined) headers.push(["Authorization", r.authorization]);
  if (r.contentType !== undefined) headers.push(["Content-Type", r.contentType]);
  if (id !== undefined) headers.push(["webhook-id", id]);
  if (timestamp !== undefined) headers.push(["webhook-timestamp", timestamp]);
  if (signatureValue !== undefined) headers.push(["webhook-signature", signatureValue]);
  const length = bytes.length;
  if (r.framing === "exact") headers.push(["Content-Length", String(length)]);
  if (r.framing === "truncated") headers.push(["Content-Length", String(length + 10)]);
  if (r.framing === "short") headers.push(["Content-Length", String(Math.floor(length / 2))]);
  if (r.framing === "declared-huge") headers.push(["Content-Length", "2000000"]);
  if (r.framing === "invalid-length") headers.push(["Content-Length", "12abc"]);
  if (r.framing === "chunked") headers.push(["Transfer-Encoding", "chunked"]);
  headers.push(...r.extraHeaders);

  // Header values as UTF-8 bytes, CR/LF included: a smuggled line break is part of the fuzz.
  const head = Buffer.from(
    `${r.method} ${r.path} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`,
    "utf8",
  );
  const payload =
    r.framing === "chunked"
      ? Buffer.concat([
          Buffer.from(`${length.toString(16)}\r\n`),
          Buffer.from(bytes),
          Buffer.from(length > 0 ? "\r\n0\r\n\r\n" : "\r\n"),
        ])
      : Buffer.from(bytes);

  // A second Authorization or webhook-* header makes the request ambiguous: never verified.
  const noDuplicates = r.extraHeaders.every(([name]) => name.startsWith("x-"));
  const benignExtras = r.extraHeaders.every(
    ([name, value]) => name.startsWith("x-") && value.length < 1000 && !/[\r\n]/.test(value),
  );
  // Everything the receiver verifies is right (the route may still differ: koa-router matches
  // case-insensitively and with a trailing slash, and that is fine).
  const authentic =
    r.method === "POST" &&
    r.authorization !== undefined &&
    /^\s*bearer\s+(\S+)\s*$/i.exec(r.authorization)?.[1] === token &&
    r.contentType !== undefined &&
    /^application\/json(;|$)/i.test(r.contentType) &&
    r.signature === "valid" &&
    // A "garbage" id that is still a well-formed one (fast-check likes "prototype") is a real id.
    id !== undefined &&
    WebhookIdSchema.safeParse(id).success &&
    typeof r.timestampOffset === "number" &&
    Math.abs(r.timestampOffset) <= 300 &&
    noDuplicates &&
    length <= 1_048_576;
  const verified = authentic && isNewPlant(bytes);
  // ...and the request is plainly well-formed: it must be answered 200 and stored.
  const valid =
    verified &&
    Math.abs(r.timestampOffset as number) <= 240 &&
    (r.path === "/plant/webhook" || r.path === "/plant/webhook?x=1") &&
    (r.framing === "exact" || r.framing === "chunked") &&
    benignExtras;
  const wellFramed =
    authentic &&
    Math.abs(r.timestampOffset as number) <= 240 &&
    (r.path === "/plant/webhook" || r.path === "/plant/webhook?x=1") &&
    (r.framing === "exact" || r.framing === "chunked") &&
    benignExtras;
  const nulFields = wellFramed ? fieldsWithNul(bytes) : [];

  const { socket, answer } = await openRaw(app.url);
  socket.write(head);
  socket.write(payload);
  // Ends our side: a truncated body then ends early, as when a client dies mid-request.
  socket.end();
  // A server that answers before reading the whole body (413, or Node refusing the head) and closes
  // leaves bytes unread, so the kernel may reset the connection and the answer be lost; the same for
  // bodies that never end.
  const headRefusedByNode =
    !/^[A-Z]+$/.test(r.method) ||
    r.extraHeaders.some(([, value]) => value.length > 1000 || /[\r\n]/.test(value));
  const mayGoUnanswered =
    ["truncated", "short", "declared-huge"].includes(r.framing) || length > 1_048_576 || headRefusedByNode;
  return {
    sent: {
      id,
      verified,
      valid,
      nulFields,
      framing: r.framing,
      method: r.method,
      signatureValue,
      mayGoUnanswered,
    },
    answer: await answer,
  };
}

async function fuzzRound(app: RunningApp, sent: Sent[], bodies: string[], tally: Tally, seed: number) {
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      const { sent: s, answer } = await fire(app, r);
      sent.push(s);
      bodies.push(answer.body);
      tally.requests++;
      if (answer.status === 0) {
        tally.closedWithoutAnswer++;
        // Only a request that never finished may go unanswered.
        expect(s.mayGoUnanswered).toBe(true);
        return;
      }
      tally.answered++;
      tally.byStatus[answer.status] = (tally.byStatus[answer.status] ?? 0) + 1;
      if (answer.status >= 500) tally.fiveHundreds++;
      expect(answer.status).toBeLessThan(500);
      if (s.valid) {
        expect(answer.status).toBe(200);
        expect(JSON.parse(answer.body)).toEqual({ received: true, duplicate: false });
      }
      if (s.nulFields.length > 0) {
        expect(s.verified).toBe(false);
        expect(answer.status).toBe(400);
        const { message } = ErrorBodySchema.parse(JSON.parse(answer.body));
        for (const field of s.nulFields) {
          expect(message).toContain(`${field}: must not contain the NUL character (U+0000)`);
        }
      }
      if (answer.status >= 400 && s.method !== "HEAD") {
        const error = ErrorBodySchema.parse(JSON.parse(answer.body));
        expect(error.error).toBe(answer.status);
      }
    }),
    { numRuns: RUNS, seed, endOnFailure: true },
  );
}

describe("plant-receiver under property-based fuzzing", () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(
      ["--token", token, "--secret", secret, "--db", join(dir, "fuzz.db")],
      {},
      { heapProbe: true },
    );
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers other methods and paths with 405 or 404 and the spec's body, never koa-router's 501", async () => {
    const cases: [string, string, number][] = [
      ["POST", "/nope", 404],
      ["PROPFIND", "/nope", 404],
      ["POST", "/plants", 405],
      ["PROPFIND", "/healthz", 405],
      ["PUT", "/plant/webhook", 405],
    ];
    for (const [method, path, status] of cases) {
      const response = await fetch(`${app.url}${path}`, { method });
      expect(response.status).toBe(status);
      expect(ErrorBodySchema.parse(await response.json()).error).toBe(status);
      if (status === 405) expect(response.headers.get("allow")).toMatch(/GET|POST/);
    }
  });

  it("never answers 5xx, never crashes, never stores an unverified request, never leaks a secret, and keeps memory flat", async () => {
    const sent: Sent[] = [];
    const bodies: string[] = [];
    const tally: Tally = { requests: 0, answered: 0, closedWithoutAnswer: 0, fiveHundreds: 0, byStatus: {} };
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

    await fuzzRound(app, sent, bodies, tally, seed);
    const heapAfterFirst = await app.heapUsed();
    await fuzzRound(app, sent, bodies, tally, seed + 1);
    const heapAfterSecond = await app.heapUsed();

    // Still alive and answering.
    expect(app.child.exitCode).toBeNull();
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);

    // Handler calls: exactly the fully valid requests, each once.
    const handled = app.lines
      .map((line) => JSON.parse(line) as { msg?: string; webhookId?: string; level?: number })
      .filter((entry) => entry.msg === "plant received")
      .map((entry) => entry.webhookId);
    const validIds = sent.filter((s) => s.valid).map((s) => s.id);
    const verifiedIds = new Set(sent.filter((s) => s.verified).map((s) => s.id));
    const unverifiedHandled = handled.filter((id) => !verifiedIds.has(id));
    expect(unverifiedHandled).toEqual([]);
    expect(new Set(handled).size).toBe(handled.length);
    expect(handled).toEqual(expect.arrayContaining(validIds));
    expect(validIds.length).toBeGreaterThan(RUNS / 10);
    // The NUL generator reached the payload check, signed and well-framed, often enough to mean something.
    expect(sent.filter((s) => s.nulFields.length > 0).length).toBeGreaterThanOrEqual(10);

    // Nothing failed inside: no error-level log lines and no 5xx in the metrics either (these
    // also cover requests whose client left before reading the answer).
    const errors = app.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
    const metrics = await (await app.read(`/metrics`)).text();
    expect(metrics).not.toMatch(/plant_receiver_webhook_requests_total\{[^}]*status="5\d\d"[^}]*\} [1-9]/);

    // Secrets: not in the logs, not in any answer.
    const everything = `${app.output()}\n${bodies.join("\n")}`;
    for (const value of [token, secret, secret.slice("whsec_".length), otherSecret.slice("whsec_".length)]) {
      expect(everything).not.toContain(value);
    }
    const signatures = sent.flatMap((s) =>
      s.signatureValue?.startsWith("v1,") ? [s.signatureValue.slice(3)] : [],
    );
    expect(signatures.length).toBeGreaterThan(RUNS);
    expect(signatures.filter((sig) => sig.length > 20 && everything.includes(sig))).toEqual([]);

    // Memory: the second, equal round must not have kept what it allocated.
    const growth = heapAfterSecond - heapAfterFirst;
    process.stdout.write(
      `${JSON.stringify({ fuzz: { seed, ...tally, handled: handled.length, unverifiedHandled: unverifiedHandled.length, heapAfterFirstMiB: +(heapAfterFirst / MIB).toFixed(2), heapAfterSecondMiB: +(heapAfterSecond / MIB).toFixed(2) } })}\n`,
    );
    expect(growth).toBeLessThan(8 * MIB);
  }, 120_000);
});
