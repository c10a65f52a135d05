import type { WebhookCatalog } from "@plant-store/types";
import type { EventMap } from "./outbox.js";
import type { SecretsCipher } from "./secrets-cipher.js";

/** What both outboxes take, whichever database they keep the queue in. */
export interface OutboxOptions<Events extends EventMap = EventMap> {
  /**
   * The webhooks this outbox sends (`createWebhookCatalog(document)`, or `PLANT_STORE_WEBHOOKS`): every
   * message must have one of their event types and a payload its schema accepts (`InvalidPayloadError`,
   * before anything is written), and an endpoint's subscriptions must each match one of them.
   */
  catalog?: WebhookCatalog<Events>;
  /**
   * Encrypts endpoint tokens and signing secrets at rest (e.g. `createAesGcmCipher`). Values stored in
   * plain text before still read; `reencryptEndpoints` converts them.
   */
  secretsCipher?: SecretsCipher;
  /**
   * The store's clock in Unix ms (leases, due times, failing periods); give one only for tests. Default:
   * on SQLite `Date.now`; on PostgreSQL the database's own (`statement_timestamp()`), which every process
   * sharing the database agrees on whatever its machine's clock says.
   */
  now?: () => number;
}
