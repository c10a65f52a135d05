import { CLAIMED_ENDPOINT_COLUMNS } from "./rows.js";
import { raw, type Sql } from "./sql.js";

/** Each column of a claimed row: the delivery's, then its message's and endpoint's under a prefix. */
const COLUMNS = [
  ...[
    "id",
    "message_id",
    "endpoint_id",
    "webhook_id",
    "event_type",
    "ordering_key",
    "status",
    "attempt_count",
    "round_attempts",
    "next_attempt_at",
    "lease_owner",
    "lease_until",
    "last_status",
    "last_error",
    "created_at",
    "updated_at",
  ].map((name) => ({ source: `d.${name}`, name })),
  ...["payload", "traceparent"].map((name) => ({ source: `m.${name}`, name: `m_${name}` })),
  ...CLAIMED_ENDPOINT_COLUMNS.map((name) => ({ source: `e.${name}`, name: `e_${name}` })),
];

/**
 * A claimed delivery's columns with its message's and endpoint's beside it (`ClaimedRow`), as both dialects
 * select them. Named, not `d.*`: PostgreSQL keeps the claim prepared, and a prepared statement whose result
 * gains a column (another process migrating the schema) fails until its connection closes.
 */
export const CLAIMED_COLUMNS = raw(
  COLUMNS.map(({ source, name }) => (source.endsWith(`.${name}`) ? source : `${source} AS ${name}`)).join(
    ", ",
  ),
);

/** The same columns by name, read from a CTE or subquery `alias` that selected `CLAIMED_COLUMNS`. */
export function claimedNames(alias: string): Sql {
  return raw(COLUMNS.map(({ name }) => `${alias}.${name}`).join(", "));
}
