export { createPostgresOutbox, type PostgresOutboxOptions } from "./create-postgres-outbox.js";
export { POSTGRES_SCHEMA } from "./postgres-schema.js";
