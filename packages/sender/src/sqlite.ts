export { createSqliteOutbox, type SqliteOutbox, type SqliteOutboxOptions } from "./create-sqlite-outbox.js";
export { SQLITE_SCHEMA } from "./sqlite-schema.js";
