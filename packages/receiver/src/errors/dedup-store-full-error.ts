/**
 * The in-memory de-duplication store holds `maxEntries` ids, all too young to forget: forgetting one
 * could let a replay of it run the handler twice. The router answers 500 (`ERR_INTERNAL`, with this as
 * the logged cause), so the sender retries once older ids may go; a durable store has no such bound.
 */
export class DedupStoreFullError extends Error {
  override readonly name = "DedupStoreFullError";
  readonly code = "ERR_DEDUP_STORE_FULL";
  readonly maxEntries: number;

  constructor(maxEntries: number, minRetentionMs: number) {
    super(
      `De-duplication store full: ${maxEntries} ids, none older than ${minRetentionMs} ms; raise maxEntries or use a durable store`,
    );
    this.maxEntries = maxEntries;
  }
}
