import { CLAIM } from "./claim-params.js";
import type { Dialect } from "./dialect.js";
import { ENDPOINT_RECEIVES } from "./endpoint-receives.js";
import { headOfItsKey } from "./head-of-its-key.js";
import { raw, type Sql, sql } from "./sql.js";

/**
 * Whether delivery `alias` may be claimed now: pending, due, under no live lease, not one the claim was
 * told to skip, and the head of its ordering key. Both databases' claims walk an endpoint's deliveries
 * with it.
 */
export function claimableDelivery(dialect: Dialect, alias: string, now: Sql): Sql {
  const column = (name: string) => raw(`${alias}.${name}`);
  return sql`${column("status")} = 'pending' AND ${column("next_attempt_at")} <= ${now}
          AND (${column("lease_until")} IS NULL OR ${column("lease_until")} <= ${now})
          AND NOT (${dialect.inList(column("id"), CLAIM.skipDeliveryIds)}) AND ${headOfItsKey(alias)}`;
}

/** Whether endpoint `e` may be claimed for: active, receiving, and neither it nor its owner excluded. */
export function claimableEndpoint(dialect: Dialect): Sql {
  return sql`e.status = 'active' AND ${ENDPOINT_RECEIVES} AND NOT (${dialect.inList(raw("e.id"), CLAIM.excludeEndpointIds)})
        AND NOT (${dialect.inList(raw("COALESCE(e.subscriber_id, 0)"), CLAIM.excludeOwners)})`;
}
