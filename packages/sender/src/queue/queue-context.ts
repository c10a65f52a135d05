import type { SecretCodec } from "../create-secret-codec.js";
import type { Dialect } from "./dialect.js";
import type { Sql } from "./sql.js";

/** What every operation is given: the database's dialect, the store's time for this operation, the secrets codec. */
export interface QueueContext {
  readonly dialect: Dialect;
  /**
   * The store's clock in Unix ms, as SQL: PostgreSQL's `statement_timestamp()` (so processes on machines
   * whose clocks disagree agree on leases), or the outbox's `now` option read once for the operation.
   */
  readonly now: Sql;
  readonly codec: SecretCodec;
}
