import type { Dialect } from "./dialect.js";
import { raw, type Sql, sql } from "./sql.js";

/** A rate-limited endpoint `e`'s burst: a fifth of a second's deliveries, at least one. */
function burst(dialect: Dialect): Sql {
  return dialect.greatest(raw("1"), raw("(e.rate_limit + 4) / 5"));
}

/**
 * How many deliveries rate-limited endpoint `e` may start at `now` (a fraction: floor it): what its bucket
 * held when last claimed for, plus what accrued since at `rate_limit` a second, up to its burst. A bucket
 * never used (or whose limit just changed) is full. The one formula both databases' claims use; the
 * claim then stores what it left (`available` minus what it leased) with `rate_at = now`, in the same
 * transaction, the endpoint's row held, so workers in every process share one bucket.
 */
export function availableTokens(dialect: Dialect, now: Sql): Sql {
  const full = burst(dialect);
  return dialect.least(
    full,
    sql`COALESCE(e.rate_tokens, ${full}) + (${now} - COALESCE(e.rate_at, ${now})) * e.rate_limit / 1000.0`,
  );
}
