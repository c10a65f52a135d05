import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type TestPostgres } from "./start-postgres.js";

describe("startPostgres", () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("serves SQL on loopback and creates separate databases", async () => {
    const url = await server.createDatabase("isolated_one");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ db: string; answer: number }>(
      "SELECT current_database() AS db, 6 * 7 AS answer",
    );
    await client.end();
    expect(rows[0]).toEqual({ db: "isolated_one", answer: 42 });
    expect(server.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
  });

  // Clusters without a password start from a copy of one shared initdb: each still has data of its own.
  it("starts two clusters at once, each with its own data directory and server", async () => {
    const [one, two] = await Promise.all([startPostgres(), startPostgres()]);
    try {
      expect(one.port).not.toBe(two.port);
      const written = new pg.Client({ connectionString: one.url });
      await written.connect();
      await written.query("CREATE TABLE only_in_one (n int)");
      await written.end();
      const other = new pg.Client({ connectionString: two.url });
      await other.connect();
      const { rows } = await other.query<{ found: string | null }>(
        "SELECT to_regclass('only_in_one')::text AS found",
      );
      await other.end();
      expect(rows[0]).toEqual({ found: null });
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
  }, 60_000);

  it("with a password, requires it over TCP and puts it in the URLs", async () => {
    const password = "pg p@ss/word";
    const secured = await startPostgres({ password });
    try {
      const url = await secured.createDatabase("secured");
      expect(url).toContain(encodeURIComponent(password));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ db: string }>("SELECT current_database() AS db");
      await client.end();
      expect(rows[0]).toEqual({ db: "secured" });
      const wrong = new pg.Client({ connectionString: url.replace(encodeURIComponent(password), "wrong") });
      await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);
    } finally {
      await secured.stop();
    }
  }, 60_000);

  it("stops while a client is mid-transaction: the client loses its connection and the port refuses new ones", async () => {
    const doomed = await startPostgres();
    const client = new pg.Client({ connectionString: await doomed.createDatabase("doomed") });
    await client.connect();
    const lost = new Promise<Error>((resolve) => client.once("error", resolve));
    await client.query("BEGIN");
    await client.query("CREATE TABLE written AS SELECT generate_series(1, 50000) AS n");
    await doomed.stop();
    expect((await lost).message).toMatch(/terminat|connection/i);
    const late = new pg.Client({ connectionString: doomed.url });
    await expect(late.connect()).rejects.toThrow(/ECONNREFUSED/);
  }, 60_000);
});
