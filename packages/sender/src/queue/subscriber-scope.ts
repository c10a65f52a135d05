import type { SubscriberScope } from "../outbox.js";
import { type Sql, sql } from "./sql.js";

/**
 * `subscriberColumn` (an endpoint's owner) is the scope's subscriber; true without a scope (the
 * operator sees everything). A row outside the scope is simply not found: the same answer as an id that
 * does not exist, so a subscriber learns nothing of another's ids.
 */
export function ownedBy(subscriberColumn: Sql, scope: SubscriberScope | undefined): Sql {
  return scope === undefined ? sql`true` : sql`${subscriberColumn} = ${scope.subscriberId}`;
}

/** `endpointColumn` (an endpoint id) names one of the scope's endpoints; true without a scope. */
export function endpointInScope(endpointColumn: Sql, scope: SubscriberScope | undefined): Sql {
  return scope === undefined
    ? sql`true`
    : sql`${endpointColumn} IN (SELECT id FROM webhook_endpoints WHERE subscriber_id = ${scope.subscriberId})`;
}
