/**
 * Where a catch-up (`createCatchUp`) keeps its cursor between runs and restarts: the position after the
 * last page of events it handled, per events URL. In memory (one process, lost on restart), SQLite or
 * PostgreSQL, as the de-duplication stores are.
 */
export interface CursorStore {
  /** The cursor stored under `key` (an events URL), if any. */
  get(key: string): Promise<string | undefined>;
  /** Stores `cursor` under `key`, replacing the one before. */
  set(key: string, cursor: string): Promise<void>;
  /** Frees what the store opened itself (never a database handle that was passed in). */
  close(): Promise<void>;
}
