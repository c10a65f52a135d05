import type { WebhookCatalog } from "@plant-store/types";
import type { SecretCodec } from "../secrets/create-secret-codec.js";
import type { Dialect } from "./dialect.js";
import type { Sql } from "./sql.js";
import type { StoreStatements } from "./store-statements.js";

/** What every operation is given: the database's dialect and own statements, the store's time for this operation, the secrets codec. */
export interface QueueContext {
  readonly dialect: Dialect;
  readonly store: StoreStatements;
  /**
   * The store's clock in Unix ms, as SQL: PostgreSQL's `statement_timestamp()` (so processes on machines
   * whose clocks disagree agree on leases), or the outbox's `now` option read once for the operation.
   */
  readonly now: Sql;
  readonly codec: SecretCodec;
  /** The outbox's webhooks, when it was given them: what messages and subscriptions are checked against. */
  readonly catalog?: WebhookCatalog;
}
