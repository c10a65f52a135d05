/** What a portal credential is: a link (exchanged once) or the session it was exchanged for. */
export type PortalCredentialKind = "link" | "session";

/** A live credential's row: whose portal it opens, and until when (Unix ms). */
export interface PortalCredentialRow {
  subscriberId: number;
  expiresAt: number;
}

/**
 * The store's portal credentials, in its own table (`store_portal_credentials`) beside the queue's, by
 * digest: a link or a session is a random string the store shows once, so neither the database nor a log
 * can give one back. Stored, not signed, so that a link is used once across every `serve` process on the
 * database, and the operator (or a token rotation) can end them all at once.
 */
export interface PortalCredentialRows {
  insert(digest: string, kind: PortalCredentialKind, row: PortalCredentialRow): Promise<void>;
  /** Deletes a live credential and answers its row, in one statement: a second take finds nothing. */
  take(digest: string, kind: PortalCredentialKind, now: number): Promise<PortalCredentialRow | undefined>;
  /** A live credential's row, left in place. */
  find(digest: string, kind: PortalCredentialKind, now: number): Promise<PortalCredentialRow | undefined>;
  /** Deletes one credential; false when there was none. */
  remove(digest: string, kind: PortalCredentialKind): Promise<boolean>;
  /** Deletes every link and session of a subscriber; answers how many. */
  removeAll(subscriberId: number): Promise<number>;
  /** Deletes the expired ones. */
  sweep(now: number): Promise<void>;
}

/**
 * The table, for both databases (`INTEGER`s are 64-bit on both). Removing a subscriber removes its rows
 * (the foreign key; SQLite's are on in every connection the queue opens).
 */
export function storePortalSchema(bigint: "INTEGER" | "BIGINT"): string {
  return `CREATE TABLE IF NOT EXISTS store_portal_credentials (
  digest TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('link', 'session')),
  subscriber_id ${bigint} NOT NULL REFERENCES webhook_subscribers (id) ON DELETE CASCADE,
  expires_at ${bigint} NOT NULL
);
CREATE INDEX IF NOT EXISTS store_portal_credentials_subscriber ON store_portal_credentials (subscriber_id);`;
}
