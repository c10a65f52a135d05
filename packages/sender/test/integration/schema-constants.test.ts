import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresOutbox, POSTGRES_SCHEMA } from "../../src/postgres.js";
import { createSqliteOutbox, SQLITE_SCHEMA } from "../../src/sqlite.js";

/** Version 1's tables, as the schema constants held them before they held the current schema. */
const schemaV1 = (database: "sqlite" | "postgres") =>
  readFileSync(new URL(`../fixtures/schema-v1.${database}.sql`, import.meta.url), "utf8");

/** Every table's columns (in order), indexes and foreign keys, as SQLite describes them. */
function describeSqlite(db: Database.Database) {
  const tables = db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'webhook_%' ORDER BY name",
    )
    .all()
    .map(({ name }) => name);
  return Object.fromEntries(
    tables.map((table) => [
      table,
      {
        columns: db
          .prepare('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)')
          .all(table),
        indexes: db
          .prepare<[string], { name: string; unique: number; partial: number }>(
            'SELECT name, "unique", partial FROM pragma_index_list(?) ORDER BY name',
          )
          .all(table)
          .map((index) => ({
            ...index,
            columns: db.prepare("SELECT name FROM pragma_index_info(?) ORDER BY seqno").all(index.name),
            where: (
              db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(index.name) as {
                sql: string | null;
              }
            ).sql
              ?.replace(/^[\s\S]*\bWHERE\b/, "")
              .replace(/\s+/g, " "),
          })),
        foreignKeys: db
          .prepare('SELECT "table", "from", "to", on_delete FROM pragma_foreign_key_list(?) ORDER BY "from"')
          .all(table),
      },
    ]),
  );
}

/** Every table's columns (in order), indexes, constraints and storage options, as PostgreSQL describes them. */
async function describePostgres(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const query = async (text: string) => (await client.query(text)).rows;
    return {
      columns: await query(`SELECT table_name, column_name, data_type, is_nullable, column_default
        FROM information_schema.columns WHERE table_schema = 'public' AND table_name LIKE 'webhook_%'
        ORDER BY table_name, ordinal_position`),
      indexes: await query(`SELECT tablename, indexname, indexdef FROM pg_indexes
        WHERE schemaname = 'public' AND tablename LIKE 'webhook_%' ORDER BY indexname`),
      constraints:
        await query(`SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
        FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY conname`),
      options: await query(`SELECT relname, reloptions FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relname LIKE 'webhook_%' ORDER BY relname`),
    };
  } finally {
    await client.end();
  }
}

describe("SQLITE_SCHEMA", () => {
  const dir = mkdtempSync(join(tmpdir(), "sender-schema-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("makes the tables, columns and indexes a version-1 database is migrated to", async () => {
    const fromConstant = new Database(join(dir, "constant.db"));
    fromConstant.exec(SQLITE_SCHEMA);
    const migrated = new Database(join(dir, "migrated.db"));
    migrated.exec(schemaV1("sqlite"));
    await createSqliteOutbox(migrated).close();
    const fresh = createSqliteOutbox(join(dir, "fresh.db"));

    const expected = describeSqlite(migrated);
    expect(Object.keys(expected)).toEqual([
      "webhook_attempts",
      "webhook_deliveries",
      "webhook_endpoints",
      "webhook_exclusions",
      "webhook_messages",
      "webhook_schema",
      "webhook_subscribers",
    ]);
    expect(describeSqlite(fromConstant)).toEqual(expected);
    expect(describeSqlite(fresh.db)).toEqual(expected);
    // Idempotent: run again on a database it made, it changes nothing.
    fromConstant.exec(SQLITE_SCHEMA);
    expect(describeSqlite(fromConstant)).toEqual(expected);
    for (const db of [fromConstant, migrated]) db.close();
    await fresh.close();
  });
});

describe("POSTGRES_SCHEMA", () => {
  let postgres: TestPostgres | undefined;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await postgres?.stop();
  });

  it("makes the tables, columns and indexes a version-1 database is migrated to", async () => {
    const run = async (url: string, text: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(text);
      await client.end();
    };
    const fromConstant = await (postgres as TestPostgres).createDatabase();
    await run(fromConstant, POSTGRES_SCHEMA);
    const migrated = await (postgres as TestPostgres).createDatabase();
    await run(migrated, schemaV1("postgres"));
    await (await createPostgresOutbox(migrated)).close();
    const fresh = await (postgres as TestPostgres).createDatabase();
    await (await createPostgresOutbox(fresh)).close();

    const expected = await describePostgres(migrated);
    expect(new Set(expected.columns.map((column) => column.table_name))).toEqual(
      new Set([
        "webhook_attempts",
        "webhook_deliveries",
        "webhook_endpoints",
        "webhook_exclusions",
        "webhook_messages",
        "webhook_schema",
        "webhook_subscribers",
      ]),
    );
    expect(await describePostgres(fromConstant)).toEqual(expected);
    expect(await describePostgres(fresh)).toEqual(expected);
    await run(fromConstant, POSTGRES_SCHEMA);
    expect(await describePostgres(fromConstant)).toEqual(expected);
  });
});
