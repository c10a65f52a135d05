export {
  createPostgresOutbox,
  type PostgresEnqueueOptions,
  type PostgresOutbox,
  type PostgresOutboxOptions,
} from "./queue/postgres/create-postgres-outbox.js";
export { POSTGRES_SCHEMA } from "./queue/postgres/postgres-schema.js";
export { withClient, withTransaction } from "./queue/postgres/with-transaction.js";
