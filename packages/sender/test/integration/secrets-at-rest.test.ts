import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, startTestReceiver, type TestPostgres, type TestReceiver } from "@plant-store/testing";
import { createWebhookCatalog, generateWebhookSecret, type WebhookCatalog } from "@plant-store/types";
import Database from "better-sqlite3";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAesGcmCipher,
  createRetryPolicy,
  createSsrfGuard,
  createWorker,
  encryptionKeyId,
  type Outbox,
  type SecretsCipher,
  SecretsDecryptionError,
} from "../../src/index.js";
import { createPostgresOutbox } from "../../src/postgres.js";
import { createSqliteOutbox } from "../../src/sqlite.js";

interface RawEndpoint {
  token: string;
  secrets: string;
  headers: string | null;
}

interface Backend {
  name: string;
  /** A fresh, empty database; `open` opens an outbox on it (several times, with other keys). */
  fresh(): Promise<{
    open(
      cipher?: SecretsCipher,
      catalog?: WebhookCatalog,
    ): Promise<Outbox & { reencryptEndpoints(): Promise<number> }>;
    raw(): Promise<RawEndpoint[]>;
    /** Every byte the database keeps on disk (SQLite: the file, its WAL; PostgreSQL: the table's rows). */
    bytes(): Promise<string>;
  }>;
}

const key = () => randomBytes(32);
const cipherOf = (...keys: Buffer[]) => createAesGcmCipher({ keys });

let postgres: TestPostgres;
const dirs: string[] = [];
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await postgres?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const sqlite: Backend = {
  name: "SQLite",
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), "sender-secrets-"));
    dirs.push(dir);
    const file = join(dir, "outbox.db");
    return {
      async open(cipher, catalog) {
        const outbox = createSqliteOutbox(file, {
          ...(cipher ? { secretsCipher: cipher } : {}),
          ...(catalog ? { catalog } : {}),
        });
        closers.push(() => outbox.close());
        return outbox;
      },
      async raw() {
        const db = new Database(file, { readonly: true });
        try {
          return db
            .prepare<[], RawEndpoint>("SELECT token, secrets, headers FROM webhook_endpoints ORDER BY id")
            .all();
        } finally {
          db.close();
        }
      },
      async bytes() {
        return readdirSync(dir)
          .map((name) => readFileSync(join(dir, name)).toString("latin1"))
          .join("\n");
      },
    };
  },
};

const postgresql: Backend = {
  name: "PostgreSQL",
  async fresh() {
    const url = await postgres.createDatabase();
    const pool = new pg.Pool({ connectionString: url });
    closers.push(() => pool.end());
    const raw = async () =>
      (await pool.query<RawEndpoint>("SELECT token, secrets, headers FROM webhook_endpoints ORDER BY id"))
        .rows;
    return {
      async open(cipher, catalog) {
        const outbox = await createPostgresOutbox(pool, {
          ...(cipher ? { secretsCipher: cipher } : {}),
          ...(catalog ? { catalog } : {}),
        });
        closers.push(() => outbox.close());
        return outbox;
      },
      raw,
      async bytes() {
        return JSON.stringify(
          (await pool.query("SELECT * FROM webhook_endpoints")).rows.map((row) => Object.values(row)),
        );
      },
    };
  },
};

describe.each([sqlite, postgresql])("endpoint secrets at rest in $name", (backend) => {
  let receiver: TestReceiver;

  beforeAll(async () => {
    receiver = await startTestReceiver();
    closers.push(() => receiver.close());
  });

  it("stores tokens and whsec_ secrets only encrypted, and deliveries still verify with standardwebhooks", async () => {
    const db = await backend.fresh();
    const k1 = key();
    const outbox = await db.open(cipherOf(k1));
    const token = `token-${randomBytes(12).toString("hex")}`;
    const [first, second] = [generateWebhookSecret(), generateWebhookSecret()];
    const endpoint = await outbox.addEndpoint({
      url: `${receiver.url}/plant/webhook`,
      token: "first-token-to-be-replaced",
      secrets: [first as string],
    });
    expect(endpoint.token).toBe("first-token-to-be-replaced");
    expect((await outbox.updateEndpoint(endpoint.id, { token }))?.token).toBe(token);
    expect(
      (await outbox.updateEndpoint(endpoint.id, { secrets: [first as string, second as string] }))?.secrets,
    ).toEqual([first, second]);
    expect(await outbox.getEndpoint(endpoint.id)).toMatchObject({ token, secrets: [first, second] });

    const [row] = await db.raw();
    for (const value of [row?.token, row?.secrets])
      expect(value).toMatch(new RegExp(`^enc:v1:${encryptionKeyId(k1)}:[\\w-]+:[\\w-]+:[\\w-]+$`));
    const stored = await db.bytes();
    for (const secret of [token, "first-token-to-be-replaced", "whsec_", first, second])
      expect(stored).not.toContain(secret);
    for (const secret of [first, second]) expect(stored).not.toContain((secret as string).slice(6, 26));

    const worker = createWorker({
      outbox,
      policy: createRetryPolicy({ schedule: "0", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      pollIntervalMs: 25,
    });
    worker.start();
    try {
      const before = receiver.requests.length;
      await outbox.enqueue({ payload: { id: 7, name: "Sealed fern" } });
      const request = (await receiver.waitForRequests(before + 1))[before];
      const headers = request?.headers as Record<string, string>;
      expect(headers.authorization).toBe(`Bearer ${token}`);
      for (const secret of [first, second])
        expect(new Webhook(secret as string).verify(request?.body ?? "", headers)).toEqual({
          id: 7,
          name: "Sealed fern",
        });
    } finally {
      await worker.stop();
    }
  });

  it("stores static header values only encrypted, sends them decrypted, and re-encrypts them under a new key", async () => {
    const db = await backend.fresh();
    const [k1, k2] = [key(), key()];
    const apiKey = `gateway-${randomBytes(12).toString("hex")}`;
    const outbox = await db.open(cipherOf(k1));
    const endpoint = await outbox.addEndpoint({
      url: `${receiver.url}/gateway`,
      token: "token",
      secrets: [generateWebhookSecret()],
      headers: { "x-api-key": apiKey },
    });
    expect(endpoint.headers).toEqual({ "x-api-key": apiKey });
    expect(await db.bytes()).not.toContain(apiKey);
    const [row] = await db.raw();
    expect(row?.headers).toMatch(new RegExp(`^enc:v1:${encryptionKeyId(k1)}:`));

    const worker = createWorker({
      outbox,
      policy: createRetryPolicy({ schedule: "0", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      pollIntervalMs: 25,
    });
    worker.start();
    try {
      const before = receiver.requests.length;
      await outbox.enqueue({ payload: { id: 8 } });
      const request = (await receiver.waitForRequests(before + 1))[before];
      expect(request?.headers["x-api-key"]).toBe(apiKey);
    } finally {
      await worker.stop();
    }

    const rotated = await db.open(cipherOf(k2, k1));
    expect(await rotated.reencryptEndpoints()).toBe(1);
    const [after] = await db.raw();
    expect(after?.headers).toMatch(new RegExp(`^enc:v1:${encryptionKeyId(k2)}:`));
    expect((await (await db.open(cipherOf(k2))).getEndpoint(endpoint.id))?.headers).toEqual({
      "x-api-key": apiKey,
    });
  });

  it("drops a token and changes the event types of an endpoint whose values are sealed", async () => {
    const db = await backend.fresh();
    // Two webhooks that need no token: a catalog tells the outbox an endpoint may go without one.
    const body = { content: { "application/json": { schema: { type: "object" } } } };
    const catalog = createWebhookCatalog({
      webhooks: {
        "plant.created": { post: { security: [], requestBody: body } },
        "plant.removed": { post: { security: [], requestBody: body } },
      },
    } as never);
    const outbox = await db.open(cipherOf(key()), catalog);
    const apiKey = `gateway-${randomBytes(12).toString("hex")}`;
    const secrets = [generateWebhookSecret()];
    const endpoint = await outbox.addEndpoint({
      url: `${receiver.url}/sealed`,
      token: "token-to-drop",
      secrets,
      headers: { "x-api-key": apiKey },
      eventTypes: ["plant.removed"],
    });
    // Both changes read the row as it stands first (is the endpoint left without a token?).
    const tokenless = await outbox.updateEndpoint(endpoint.id, { token: null });
    expect(tokenless).toMatchObject({ secrets, headers: { "x-api-key": apiKey } });
    expect(tokenless?.token).toBeUndefined();
    expect(
      await outbox.updateEndpoint(endpoint.id, {
        eventTypes: ["plant.created"],
        headers: { "x-other": "1" },
      }),
    ).toMatchObject({ eventTypes: ["plant.created"], secrets, headers: { "x-other": "1" } });
    expect(await outbox.getEndpoint(endpoint.id)).toMatchObject({
      eventTypes: ["plant.created"],
      headers: { "x-other": "1" },
    });
    expect((await outbox.getEndpoint(endpoint.id))?.token).toBeUndefined();
  });

  it("refuses to read with a wrong key or no key, with a typed error that names no secret", async () => {
    const db = await backend.fresh();
    const k1 = key();
    const token = `token-${randomBytes(12).toString("hex")}`;
    const secret = generateWebhookSecret();
    const { id } = await (await db.open(cipherOf(k1))).addEndpoint({
      url: `${receiver.url}/plant/webhook`,
      token,
      secrets: [secret],
    });
    const wrong = key();
    for (const outbox of [await db.open(cipherOf(wrong)), await db.open()]) {
      for (const read of [() => outbox.getEndpoint(id), () => outbox.listEndpoints()]) {
        const error = await read().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(SecretsDecryptionError);
        const { message, code } = error as SecretsDecryptionError;
        expect(code).toBe("ERR_SECRETS_DECRYPTION");
        for (const leaked of [
          token,
          secret,
          k1.toString("base64"),
          wrong.toString("base64"),
          k1.toString("hex"),
        ])
          expect(message).not.toContain(leaked);
      }
    }
  });

  it("refuses, before it writes anything, a plain token or secret beside encrypted ones when opened without the key", async () => {
    const db = await backend.fresh();
    const token = `token-${randomBytes(12).toString("hex")}`;
    const secret = generateWebhookSecret();
    const { id } = await (await db.open(cipherOf(key()))).addEndpoint({
      url: `${receiver.url}/sealed`,
      token,
      secrets: [secret],
    });
    const before = await db.raw();
    const plain = await db.open();
    const writes = [
      () => plain.addEndpoint({ url: `${receiver.url}/plain`, token: "plain-token", secrets: [secret] }),
      () => plain.ensureEndpoint({ url: `${receiver.url}/plain`, token: "plain-token", secrets: [secret] }),
      () => plain.updateEndpoint(id, { token: "plain-token" }),
      () => plain.updateEndpoint(id, { secrets: [generateWebhookSecret()] }),
      () => plain.rotateEndpointSecret(id),
    ];
    for (const write of writes)
      await expect(write()).rejects.toMatchObject({
        code: expect.stringMatching(/^ERR_(ENCRYPTION_KEY_REQUIRED|SECRETS_DECRYPTION)$/),
      });
    // A status change needs the key as well (its answer is the endpoint), and rolls back without it.
    await expect(plain.setEndpointStatus(id, "disabled")).rejects.toThrow(SecretsDecryptionError);
    expect(await db.raw()).toEqual(before);
    expect(await db.bytes()).not.toContain("plain-token");
  });

  it("reads a database written without a key, re-encrypts it, and re-encrypts again under a new key the old one cannot open", async () => {
    const db = await backend.fresh();
    const token = `token-${randomBytes(12).toString("hex")}`;
    const secret = generateWebhookSecret();
    const plain = await db.open();
    const a = await plain.addEndpoint({ url: `${receiver.url}/a`, token, secrets: [secret] });
    const b = await plain.addEndpoint({ url: `${receiver.url}/b`, token: "other-token", secrets: [secret] });
    expect((await db.raw())[0]).toEqual({ token, secrets: JSON.stringify([secret]), headers: null });

    const k1 = key();
    const one = await db.open(cipherOf(k1));
    expect(await one.getEndpoint(a.id)).toMatchObject({ token, secrets: [secret] });
    expect(await one.reencryptEndpoints()).toBe(2);
    expect(await one.reencryptEndpoints()).toBe(0);
    const underK1 = await db.raw();
    expect(underK1.every((row) => row.token.startsWith(`enc:v1:${encryptionKeyId(k1)}:`))).toBe(true);
    expect(await db.bytes()).not.toContain(token);
    expect(await db.bytes()).not.toContain("whsec_");

    const k2 = key();
    const both = await db.open(cipherOf(k2, k1));
    expect(await both.getEndpoint(b.id)).toMatchObject({ token: "other-token", secrets: [secret] });
    expect(await both.reencryptEndpoints()).toBe(2);
    const underK2 = await db.raw();
    expect(
      underK2.every(
        (row) =>
          row.token.startsWith(`enc:v1:${encryptionKeyId(k2)}:`) &&
          row.secrets.startsWith(`enc:v1:${encryptionKeyId(k2)}:`),
      ),
    ).toBe(true);

    const onlyK2 = await db.open(cipherOf(k2));
    expect(await onlyK2.getEndpoint(a.id)).toMatchObject({ token, secrets: [secret] });
    const onlyK1 = await db.open(cipherOf(k1));
    await expect(onlyK1.getEndpoint(a.id)).rejects.toThrow(SecretsDecryptionError);
    await expect(onlyK1.getEndpoint(a.id)).rejects.toThrow(encryptionKeyId(k2));
  });
});
