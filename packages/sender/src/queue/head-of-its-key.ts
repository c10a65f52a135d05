import { raw, type Sql } from "./sql.js";

/**
 * Whether delivery `alias` may be attempted now as far as its ordering key goes: it has none, or no
 * delivery queued before it with the same key to the same endpoint is still pending (queued, leased or
 * waiting for a retry). A delivery being retried so holds back only its key on its endpoint, and two
 * deliveries of one key are never in flight at once: the earlier one stays pending while leased. Both
 * claims test it, inside each endpoint's walk (a held-back delivery does not take a claim's place).
 */
export function headOfItsKey(alias: string): Sql {
  return raw(`(${alias}.ordering_key IS NULL OR NOT EXISTS (
    SELECT 1 FROM webhook_deliveries o WHERE o.endpoint_id = ${alias}.endpoint_id
      AND o.ordering_key = ${alias}.ordering_key AND o.status = 'pending' AND o.id < ${alias}.id))`);
}
