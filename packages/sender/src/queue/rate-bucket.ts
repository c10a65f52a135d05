import type { Dialect } from "./dialect.js";
import { raw, type Sql, sql } from "./sql.js";

/**
 * A rate-limited endpoint `e`'s burst: one second's deliveries. Workers claim when woken and at each
 * poll (once a second by default): a smaller bucket would overflow between two polls of an idle worker
 * and hold the endpoint below its limit (a fifth of a second's worth gave 19 a second of 50 measured).
 */
const BURST = raw("e.rate_limit");

/**
 * How many deliveries rate-limited endpoint `e` may start at `now` (a fraction: floor it): what its bucket
 * held when last claimed for, plus what accrued since at `rate_limit` a second, up to its burst. A bucket
 * never used (or whose limit just changed) is full. The one formula both databases' claims use; the
 * claim then stores what it left (`available` minus what it leased) with `rate_at = now`, in the same
 * transaction, the endpoint's row held, so workers in every process share one bucket.
 */
export function availableTokens(dialect: Dialect, now: Sql): Sql {
  return dialect.least(
    BURST,
    sql`COALESCE(e.rate_tokens, ${BURST}) + (${now} - COALESCE(e.rate_at, ${now})) * e.rate_limit / 1000.0`,
  );
}
