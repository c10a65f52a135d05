import type { ClaimPlan } from "./claim-plan.js";
import { bindByName, composedByName, isParam, named, type Sql, type SqlParam } from "./sql.js";

/**
 * The claim's values as named parameters, so its statements are composed once and bound per call
 * (`claimValues`): composing the claim's fragments and rendering its text at every call cost an idle
 * SQLite claim about three times its own work. The lists are one parameter each (`Dialect.inList`), so
 * the text is the same for any number of values.
 */
export const CLAIM = {
  perEndpoint: named("perEndpoint", "int"),
  perOwner: named("perOwner", "int"),
  limit: named("limit", "int"),
  excludeOwners: named("excludeOwners", "bigint[]"),
  excludeEndpointIds: named("excludeEndpointIds", "bigint[]"),
  skipDeliveryIds: named("skipDeliveryIds", "bigint[]"),
  keepBucketsOf: named("keepBucketsOf", "bigint[]"),
  workerId: named("workerId", "text"),
  leaseMs: named("leaseMs", "bigint"),
} as const;

export type ClaimParam = keyof typeof CLAIM;

/** Each named parameter of the claim (`CLAIM`) its value in `plan`. */
export function claimValues(plan: ClaimPlan): Record<ClaimParam, SqlParam["value"]> {
  return {
    perEndpoint: plan.perEndpoint,
    perOwner: plan.perOwner,
    limit: plan.limit,
    excludeOwners: plan.excludeOwners,
    excludeEndpointIds: plan.excludeEndpointIds,
    skipDeliveryIds: plan.skipDeliveryIds,
    keepBucketsOf: plan.keepBucketsOf,
    workerId: plan.workerId,
    leaseMs: plan.leaseMs,
  };
}

/**
 * A statement over the store's clock `now` and named parameters (`named`), composed once for each way
 * the clock is written (a parameter; PostgreSQL's own clock as text) and bound per call by name, the
 * clock's value as `now`.
 */
export function composedPerClock<Name extends string>(
  build: (now: Sql) => Sql,
): (now: Sql, values: Readonly<Record<Name, SqlParam["value"]>>) => Sql {
  const byClock = new Map<string, (values: Readonly<Record<Name | "now", SqlParam["value"]>>) => Sql>();
  return (now, values) => {
    // The store's clock as one parameter (SQLite's, or the outbox's `now` option), or as text.
    const clock = isParam(now) ? now.params[0] : undefined;
    // A clock of text and parameters would be bound as composed: composed for this call alone.
    if (clock === undefined && now.params.length > 0) return bindByName(build(now), values);
    const key = clock === undefined ? `text ${now.strings[0]}` : `param ${clock.type}`;
    let bind = byClock.get(key);
    if (bind === undefined) {
      bind = composedByName<Name | "now">(build(clock === undefined ? now : named("now", clock.type)));
      byClock.set(key, bind);
    }
    return bind(clock === undefined ? { ...values, now: null } : { ...values, now: clock.value });
  };
}
