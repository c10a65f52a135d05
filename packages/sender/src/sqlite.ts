export {
  createSqliteOutbox,
  type SqliteOutbox,
  type SqliteOutboxOptions,
} from "./queue/sqlite/create-sqlite-outbox.js";
export { SQLITE_SCHEMA } from "./queue/sqlite/sqlite-schema.js";
