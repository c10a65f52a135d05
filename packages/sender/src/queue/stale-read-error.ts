/** A row a record read without locks changed before its write: the record runs again under locks. */
export class StaleReadError extends Error {
  readonly code = "ERR_STALE_READ";
  override readonly name = "StaleReadError";
}
