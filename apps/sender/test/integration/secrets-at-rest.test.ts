import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encryptionKeyId } from "@plant-store/sender";
import {
  startPostgres,
  startTestReceiver,
  type TestPostgres,
  type TestReceiver,
  waitFor,
} from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import Database from "better-sqlite3";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../fixtures/cli-in-process.js";
import { runCli as runCliProcess, startStore } from "../fixtures/store-process.js";

const ADMIN = { PLANT_STORE_ADMIN_TOKEN: "admin-token-0123456789" };

async function json<T>(args: readonly string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await runCli([...args, "--json"], env);
  if (result.code !== 0)
    throw new Error(`plant-store ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

describe("plant-store with an encryption key (SQLite)", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-secrets-"));
  const db = join(dir, "data", "store.db");
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const token = `receiver-token-${randomBytes(8).toString("hex")}`;
  const withOld = { PLANT_STORE_ENCRYPTION_KEY: oldKey.toString("base64") };
  let receiver: TestReceiver;
  let secret = "";
  const rawRows = () => {
    const handle = new Database(db, { readonly: true });
    try {
      return handle
        .prepare<[], { token: string; secrets: string }>("SELECT token, secrets FROM webhook_endpoints")
        .all();
    } finally {
      handle.close();
    }
  };
  const fileBytes = () =>
    readdirSync(join(dir, "data"))
      .map((name) => readFileSync(join(dir, "data", name)).toString("latin1"))
      .join("\n");
  const keyTexts = [oldKey, newKey].flatMap((key) => [
    key.toString("base64"),
    key.toString("base64url"),
    key.toString("hex"),
  ]);

  beforeAll(async () => {
    receiver = await startTestReceiver();
    const added = await json<{ secret: string }>(
      ["endpoints", "add", `${receiver.url}/plant/webhook`, "--token", token, "--db", db],
      withOld,
    );
    secret = added.secret;
  }, 30_000);

  afterAll(async () => {
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stores the token and the secret encrypted under the key's id: neither is anywhere in the files", () => {
    const [row] = rawRows();
    expect(row?.token.startsWith(`enc:v1:${encryptionKeyId(oldKey)}:`)).toBe(true);
    expect(row?.secrets.startsWith(`enc:v1:${encryptionKeyId(oldKey)}:`)).toBe(true);
    const bytes = fileBytes();
    for (const value of [token, secret, "whsec_", secret.slice(6, 26)]) expect(bytes).not.toContain(value);
  });

  it("delivers with the decrypted token and secret (verified by standardwebhooks), never logging a key and not warning", async () => {
    const store = await startStore(["--db", db, "--allow-private-targets"], { ...ADMIN, ...withOld });
    try {
      const { plant } = await json<{ plant: { id: number } }>(
        ["plants", "add", "--name", "Encrypted ivy", "--db", db],
        withOld,
      );
      const [request] = await receiver.waitForRequests(1);
      const headers = request?.headers as Record<string, string>;
      expect(headers.authorization).toBe(`Bearer ${token}`);
      expect(new Webhook(secret).verify(request?.body ?? "", headers)).toEqual({
        id: plant.id,
        name: "Encrypted ivy",
      });
    } finally {
      await store.stop();
    }
    const output = store.output();
    expect(output).not.toContain("stored unencrypted");
    for (const text of [...keyTexts, token, secret]) expect(output).not.toContain(text);
  });

  it("refuses to start or run a command with a wrong key or none, exit 2, naming no key", async () => {
    const wrong = randomBytes(32);
    for (const env of [{ PLANT_STORE_ENCRYPTION_KEY: wrong.toString("hex") }, {}]) {
      for (const args of [
        ["serve", "--port", "0", "--db", db],
        ["endpoints", "list", "--db", db],
      ]) {
        // `serve` as its own process: were it to start, it would keep running.
        const result = await (args[0] === "serve" ? runCliProcess : runCli)(args, { ...ADMIN, ...env });
        expect(result.code, `${args[0]} ${JSON.stringify(env)}`).toBe(2);
        expect(result.stderr).toContain("encrypted");
        expect(result.stderr).toContain("PLANT_STORE_ENCRYPTION_KEY or --encryption-key-file");
        for (const text of [...keyTexts, wrong.toString("hex"), token, secret])
          expect(result.stderr).not.toContain(text);
      }
    }
  });

  it("writes no token or secret without the key: every such command exits 2 before writing anything", async () => {
    const before = rawRows();
    const plainSecret = generateWebhookSecret();
    for (const args of [
      ["endpoints", "add", `${receiver.url}/plain`, "--token", "plain-token-1", "--secret", plainSecret],
      ["endpoints", "set-token", "1", "--token", "plain-token-2"],
      ["endpoints", "set-secrets", "1", "--secret", plainSecret],
      ["endpoints", "rotate-secret", "1", "--secret", plainSecret],
    ]) {
      const result = await runCli([...args, "--db", db], {});
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain("PLANT_STORE_ENCRYPTION_KEY or --encryption-key-file");
    }
    expect(rawRows()).toEqual(before);
    const bytes = fileBytes();
    for (const value of ["plain-token-1", "plain-token-2", plainSecret]) expect(bytes).not.toContain(value);
  });

  it("refuses malformed keys, and a key given both ways, without echoing them", async () => {
    const keyFile = join(dir, "keys");
    writeFileSync(keyFile, `${newKey.toString("hex")}\n`, { mode: 0o600 });
    for (const [env, expected] of [
      [{ PLANT_STORE_ENCRYPTION_KEY: "short-key-not-32-bytes" }, "key 1 is not 32 bytes"],
      [
        { PLANT_STORE_ENCRYPTION_KEY: `${newKey.toString("hex")},${"ab".repeat(31)}` },
        "key 2 is not 32 bytes",
      ],
      [
        { PLANT_STORE_ENCRYPTION_KEY: oldKey.toString("base64"), PLANT_STORE_ENCRYPTION_KEY_FILE: keyFile },
        "not both",
      ],
      [{ PLANT_STORE_ENCRYPTION_KEY_FILE: join(dir, "missing") }, "cannot read"],
    ] as const) {
      const result = await runCli(["endpoints", "list", "--db", db], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(expected);
      for (const text of [...keyTexts, "short-key-not-32-bytes", "ab".repeat(31)])
        expect(result.stderr).not.toContain(text);
    }
  });

  it("re-encrypts every endpoint under a new key put first; then the old key alone no longer reads them", async () => {
    const both = {
      PLANT_STORE_ENCRYPTION_KEY: `${newKey.toString("base64url")},${oldKey.toString("base64")}`,
    };
    expect((await runCli(["endpoints", "re-encrypt", "--db", db], {})).code).toBe(2);
    expect(await json(["endpoints", "re-encrypt", "--db", db], both)).toEqual({
      reencrypted: 1,
      endpoints: 1,
    });
    expect(await json(["endpoints", "re-encrypt", "--db", db], both)).toEqual({
      reencrypted: 0,
      endpoints: 1,
    });
    const [row] = rawRows();
    expect(row?.token.startsWith(`enc:v1:${encryptionKeyId(newKey)}:`)).toBe(true);
    expect(row?.secrets.startsWith(`enc:v1:${encryptionKeyId(newKey)}:`)).toBe(true);
    for (const value of [token, secret, "whsec_"]) expect(fileBytes()).not.toContain(value);

    const old = await runCli(["endpoints", "list", "--db", db], withOld);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain(encryptionKeyId(newKey));
    // The new key alone, from a key file this time, reads them and the store delivers with them.
    const keyFile = join(dir, "new-key");
    writeFileSync(keyFile, `# rotated\n${newKey.toString("hex")}\n`, { mode: 0o600 });
    const fromFile = { PLANT_STORE_ENCRYPTION_KEY_FILE: keyFile };
    expect(
      (await json<{ endpoints: unknown[] }>(["endpoints", "list", "--db", db], fromFile)).endpoints,
    ).toHaveLength(1);
    const store = await startStore(
      ["--db", db, "--allow-private-targets", "--encryption-key-file", keyFile],
      ADMIN,
    );
    try {
      const before = receiver.requests.length;
      const { plant } = await json<{ plant: { id: number } }>(
        ["plants", "add", "--name", "Rotated fern", "--db", db],
        fromFile,
      );
      const request = (await receiver.waitForRequests(before + 1))[before];
      const headers = request?.headers as Record<string, string>;
      expect(headers.authorization).toBe(`Bearer ${token}`);
      expect(new Webhook(secret).verify(request?.body ?? "", headers)).toEqual({
        id: plant.id,
        name: "Rotated fern",
      });
    } finally {
      await store.stop();
    }
  });
});

describe("plant-store re-encrypting (SQLite) while serve runs and its worker writes endpoint rows", () => {
  it("leaves no value under the old key anywhere in the files", async () => {
    const dir = mkdtempSync(join(tmpdir(), "plant-store-rotate-live-"));
    const db = join(dir, "store.db");
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const withOld = { PLANT_STORE_ENCRYPTION_KEY: oldKey.toString("hex") };
    const both = { PLANT_STORE_ENCRYPTION_KEY: `${newKey.toString("hex")},${oldKey.toString("hex")}` };
    const oldValue = `enc:v1:${encryptionKeyId(oldKey)}:`;
    const files = () =>
      readdirSync(dir)
        .map((name) => readFileSync(join(dir, name)).toString("latin1"))
        .join("\n");
    // Nothing listens on port 9 here: every attempt fails, and each failure rewrites its endpoint's row
    // (failing since, last failure), which leaves the row's old copy, old-key values and all, behind.
    for (const path of ["/a", "/b"])
      await json(
        ["endpoints", "add", `http://127.0.0.1:9${path}`, "--token", `token${path}`, "--db", db],
        withOld,
      );
    // The README's rotation: the new key first, serve restarted with it, re-encrypt, then the old key goes.
    const store = await startStore(
      ["--db", db, "--allow-private-targets", "--retry-schedule", "0,20ms,20ms,20ms,20ms"],
      { ...ADMIN, ...both },
    );
    try {
      for (let plant = 0; plant < 2; plant++)
        await json(["plants", "add", "--name", `Rotated ${plant}`, "--db", db], both);
      const failed = () => {
        const handle = new Database(db, { readonly: true });
        try {
          return handle
            .prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'failed'")
            .get() as {
            n: number;
          };
        } finally {
          handle.close();
        }
      };
      await waitFor(() => (failed().n === 4 ? true : undefined), 30_000);
      expect(files()).toContain(oldValue);
      expect(await json(["endpoints", "re-encrypt", "--db", db], both)).toEqual({
        reencrypted: 2,
        endpoints: 2,
      });
    } finally {
      await store.stop();
    }
    expect(files()).not.toContain(oldValue);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});

describe("plant-store without an encryption key", () => {
  it("warns at start-up that tokens and secrets are stored unencrypted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "plant-store-plain-"));
    const store = await startStore(["--db", join(dir, "store.db")], ADMIN);
    try {
      const warning = store.lines.find((line) => String(line.msg).includes("stored unencrypted"));
      expect(warning).toMatchObject({ level: 40 });
    } finally {
      await store.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("plant-store with an encryption key (PostgreSQL)", () => {
  let postgres: TestPostgres;

  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);

  afterAll(async () => {
    await postgres?.stop();
  });

  it("keeps no token or whsec_ secret in plain text in webhook_endpoints, and re-encrypts them", async () => {
    const url = await postgres.createDatabase();
    const key = randomBytes(32);
    const next = randomBytes(32);
    const token = `pg-token-${randomBytes(8).toString("hex")}`;
    const env = { PLANT_STORE_ENCRYPTION_KEY: key.toString("hex") };
    const { secret } = await json<{ secret: string }>(
      ["endpoints", "add", "https://receiver.example/plant/webhook", "--token", token, "--db", url],
      env,
    );
    const pool = new pg.Pool({ connectionString: url });
    try {
      const raw = async () =>
        JSON.stringify(
          (await pool.query("SELECT * FROM webhook_endpoints")).rows.map((row) => Object.values(row)),
        );
      for (const value of [token, secret, "whsec_"]) expect(await raw()).not.toContain(value);
      expect(await raw()).toContain(`enc:v1:${encryptionKeyId(key)}:`);
      expect(
        await json(["endpoints", "re-encrypt", "--db", url], {
          PLANT_STORE_ENCRYPTION_KEY: `${next.toString("hex")},${key.toString("hex")}`,
        }),
      ).toEqual({ reencrypted: 1, endpoints: 1 });
      expect(await raw()).toContain(`enc:v1:${encryptionKeyId(next)}:`);
      expect(await raw()).not.toContain(`enc:v1:${encryptionKeyId(key)}:`);
      expect((await runCli(["endpoints", "list", "--db", url], env)).code).toBe(2);
    } finally {
      await pool.end();
    }
  }, 60_000);
});
