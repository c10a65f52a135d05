import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { NewPlantSchema } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliStreams, runCli } from "../../src/index.js";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const workspaceRoot = join(packageDir, "../..");
const fixture = join(packageDir, "test/fixtures/orders-openapi.json");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/** Runs the CLI in-process, collecting what it prints. */
async function cli(...argv: string[]) {
  let out = "";
  let err = "";
  const streams: CliStreams = {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
  };
  const code = await runCli(argv, streams);
  return { code, out, err };
}

/** tsc over a folder of the package (so it resolves the package's dependencies), strict as the house is. */
async function typeCheck(dir: string): Promise<string> {
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({ extends: join(workspaceRoot, "tsconfig.base.json"), include: ["*.ts"] }),
  );
  try {
    await run(process.execPath, [tsc, "-p", dir], { cwd: dir });
    return "";
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

let dir: string;
beforeAll(async () => {
  // Inside the package, so that the generated module and its consumers resolve zod and our packages.
  dir = await mkdtemp(join(packageDir, "test/.tmp-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("plant-webhooks generate", () => {
  it("writes a module that compiles under strict settings and types every webhook", async () => {
    const out = join(dir, "orders.ts");
    expect(await cli("generate", fixture, "--out", out)).toMatchObject({ code: 0, err: "" });
    await writeFile(
      join(dir, "good.ts"),
      `import type { Database } from "better-sqlite3";
import { createWebhookReceiver } from "@plant-store/receiver";
import { createSqliteOutbox } from "@plant-store/sender/sqlite";
import { createWebhookCatalog } from "@plant-store/types";
import { catalog as document, type InvoicePaid, type Order, schemas } from "./orders.js";

const catalog = createWebhookCatalog(document);
export const types: ReadonlyArray<"order.created" | "order.shipped" | "invoice.paid"> = catalog.eventTypes;
export async function send(db: Database) {
  const outbox = createSqliteOutbox(db, { catalog });
  const order: Order = { id: "ord_1", total: { amount: 1250, currency: "EUR" }, createdAt: "2026-11-27T10:00:00Z" };
  await outbox.enqueue({ eventType: "order.created", payload: order });
  await outbox.enqueue({ eventType: "invoice.paid", payload: { invoiceId: 7, paidAt: "2026-11-27T10:00:00Z", total: { amount: 5, currency: "GBP" } } });
}
export const receiver = createWebhookReceiver({
  catalog,
  secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
  tokens: ["a-token"],
  handlers: {
    "order.shipped": async (payload) => {
      const carrier: "post" | "courier" = payload.carrier;
      const deep: string | undefined = payload.parcel.contents?.[0]?.contents?.[0]?.label;
      return void [carrier, deep];
    },
  },
});
export const paid: InvoicePaid = schemas["invoice.paid"].parse({});
`,
    );
    expect(await typeCheck(dir)).toBe("");
  });

  it("makes tsc refuse a handler that reads a field as the wrong type, a wrong enum value and an unknown event type", async () => {
    const bad = join(dir, "bad.ts");
    const lines = [
      'import type { Outbox } from "@plant-store/sender";',
      'import { createWebhookReceiver } from "@plant-store/receiver";',
      'import { createWebhookCatalog } from "@plant-store/types";',
      'import { catalog as document, type WebhookEvents } from "./orders.js";',
      "const catalog = createWebhookCatalog(document);",
      "export async function send(outbox: Outbox<WebhookEvents>) {",
      '  await outbox.enqueue({ eventType: "invoice.paid", payload: { invoiceId: 7, paidAt: "x", total: { amount: 5, currency: "JPY" } } });',
      '  await outbox.enqueue({ eventType: "order.typo", payload: {} });',
      "}",
      "export const receiver = createWebhookReceiver({",
      "  catalog,",
      '  secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],',
      '  tokens: ["a-token"],',
      "  handlers: {",
      '    "order.created": async (payload) => {',
      "      const id: number = payload.id;",
      "      return void id;",
      "    },",
      "  },",
      "});",
    ];
    await writeFile(bad, lines.join("\n"));
    const output = await typeCheck(dir);
    await rm(bad);
    const errorLines = [...output.matchAll(/bad\.ts\((\d+),\d+\): error (TS\d+)/g)].map((m) => [
      Number(m[1]),
      m[2],
    ]);
    expect([...new Set(errorLines.map(([line]) => line))]).toEqual([7, 8, 16]);
    expect(output).toContain('Type \'"JPY"\' is not assignable to type \'"EUR" | "USD" | "GBP"\'');
    expect(output).toMatch(/Type '"order\.typo"' is not assignable/);
    expect(output).toContain("Type 'string' is not assignable to type 'number'");
  });

  it("validates payloads with the generated zod schemas, recursion and formats included", async () => {
    const generated = (await import(join(dir, "orders.ts"))) as {
      schemas: Record<string, { safeParse(value: unknown): { success: boolean } }>;
    };
    const shipped = generated.schemas["order.shipped"];
    const parcel = { label: "a", contents: [{ label: "b", contents: [{ label: "c" }] }] };
    expect(shipped?.safeParse({ orderId: "ord_1", carrier: "post", parcel }).success).toBe(true);
    expect(
      shipped?.safeParse({
        orderId: "ord_1",
        carrier: "post",
        parcel: { label: "a", contents: [{ label: 3 }] },
      }).success,
    ).toBe(false);
    expect(shipped?.safeParse({ orderId: "x", carrier: "post", parcel }).success).toBe(false);
    const paid = generated.schemas["invoice.paid"];
    const invoice = { invoiceId: 1, paidAt: "2026-11-27T10:00:00Z", total: { amount: 1, currency: "EUR" } };
    expect(paid?.safeParse(invoice).success).toBe(true);
    expect(paid?.safeParse({ ...invoice, paidAt: "yesterday" }).success).toBe(false);
    expect(paid?.safeParse({ ...invoice, extra: 1 }).success).toBe(false);
  });

  it("--check exits 0 when the file matches, 1 when it is stale or missing, and writes nothing", async () => {
    const doc = join(dir, "doc.json");
    const out = join(dir, "checked.ts");
    await copyFile(fixture, doc);
    expect((await cli("generate", doc, "--out", out, "--check")).code).toBe(1);
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
    expect((await cli("generate", doc, "--out", out)).code).toBe(0);
    const written = await readFile(out, "utf8");
    expect(await cli("generate", doc, "--out", out, "--check")).toMatchObject({ code: 0, err: "" });
    const changed = JSON.parse(await readFile(doc, "utf8"));
    changed.components.schemas.Money.properties.currency.enum.push("JPY");
    await writeFile(doc, JSON.stringify(changed));
    const stale = await cli("generate", doc, "--out", out, "--check");
    expect(stale.code).toBe(1);
    expect(stale.err).toContain(`${out} is stale: run plant-webhooks generate`);
    expect(await readFile(out, "utf8")).toBe(written);
  });

  it("reads YAML documents as JSON ones", async () => {
    const yaml = join(dir, "doc.yaml");
    // JSON is YAML: the same document, read by the YAML parser.
    await copyFile(fixture, yaml);
    expect((await cli("generate", yaml, "--out", join(dir, "from-yaml.ts"))).code).toBe(0);
    const fromJson = await readFile(join(dir, "orders.ts"), "utf8");
    const fromYaml = await readFile(join(dir, "from-yaml.ts"), "utf8");
    expect(fromYaml.split("\n").slice(2)).toEqual(fromJson.split("\n").slice(2));
  });

  it("refuses what it cannot generate from with exit 2 and the schema's path", async () => {
    const doc = join(dir, "unsupported.json");
    const document = JSON.parse(await readFile(fixture, "utf8"));
    document.components.schemas.Parcel.properties.label = { not: { type: "integer" } };
    await writeFile(doc, JSON.stringify(document));
    const refused = await cli("generate", doc, "--out", join(dir, "never.ts"));
    expect(refused).toMatchObject({ code: 2, out: "" });
    expect(refused.err).toBe(
      "The schema at #/components/schemas/Parcel/properties/label/not uses not, which webhook schemas do not support\n",
    );
    await writeFile(doc, "{ not json");
    expect((await cli("generate", doc, "--out", join(dir, "never.ts"))).err).toMatch(
      /unsupported\.json is not valid JSON/,
    );
    await expect(stat(join(dir, "never.ts"))).rejects.toThrow(/ENOENT/);
  });

  it("generates the Plant Store's NewPlant as @plant-store/types has it", async () => {
    const out = join(dir, "plant-store.ts");
    const spec = join(workspaceRoot, "spec/openapi.json");
    expect((await cli("generate", spec, "--out", out)).code).toBe(0);
    const generated = (await import(out)) as { schemas: { newPlant: typeof NewPlantSchema } };
    for (const payload of [
      { id: 1, name: "Monstera" },
      { id: 1, name: "" },
      { id: 1.5, name: "x" },
      { id: 1, name: "x", tag: "t" },
    ])
      expect(generated.schemas.newPlant.safeParse(payload).success, JSON.stringify(payload)).toBe(
        NewPlantSchema.safeParse(payload).success,
      );
    await writeFile(
      join(dir, "same-plant.ts"),
      `import type { NewPlant as Contract } from "@plant-store/types";
import type { NewPlant, WebhookEvents } from "./plant-store.js";
// The same fields, required and optional alike; zod's inferred type also allows an optional field to be
// undefined, which a JSON payload never is, so that difference is set aside both ways.
type Defined<T> = { [K in keyof T]: Exclude<T[K], undefined> };
export const toGenerated = (plant: Defined<Contract>): Defined<NewPlant> => plant;
export const toContract = (plant: Defined<NewPlant>): Defined<Contract> => plant;
export const direct = (plant: NewPlant): Contract => plant;
export const events: keyof WebhookEvents = "newPlant";
`,
    );
    expect(await typeCheck(dir)).toBe("");
  });

  it("runs as the plant-webhooks command", async () => {
    const out = join(dir, "by-bin.ts");
    const { stdout } = await run(process.execPath, [
      join(packageDir, "dist/cli.js"),
      "generate",
      fixture,
      "--out",
      out,
    ]);
    expect(stdout).toBe(`Wrote ${out} from ${fixture}\n`);
    expect(await readFile(out, "utf8")).toContain(
      'export const catalog = document as typeof document & { readonly "~events"?: WebhookEvents };',
    );
    const help = await run(process.execPath, [join(packageDir, "dist/cli.js"), "generate", "--help"]);
    expect(help.stdout).toContain("--check");
  });
});
