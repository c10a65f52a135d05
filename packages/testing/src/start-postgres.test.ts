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
});
