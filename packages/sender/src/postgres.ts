export {
  createPostgresOutbox,
  type PostgresEnqueueOptions,
  type PostgresOutbox,
  type PostgresOutboxOptions,
} from "./create-postgres-outbox.js";
export { POSTGRES_SCHEMA } from "./postgres-schema.js";
export { withTransaction } from "./with-transaction.js";
