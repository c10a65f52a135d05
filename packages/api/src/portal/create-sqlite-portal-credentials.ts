import type { SqliteOutbox } from "@plant-store/sender/sqlite";
import { type PortalCredentialRows, storePortalSchema } from "./portal-credential-rows.js";

interface Row {
  subscriber_id: number;
  expires_at: number;
}

/** Portal credentials in the outbox's own SQLite file. */
export function createSqlitePortalCredentials(outbox: Pick<SqliteOutbox, "db">): PortalCredentialRows {
  const { db } = outbox;
  db.exec(storePortalSchema("INTEGER"));
  const insert = db.prepare<[string, string, number, number]>(
    "INSERT INTO store_portal_credentials (digest, kind, subscriber_id, expires_at) VALUES (?, ?, ?, ?)",
  );
  const take = db.prepare<[string, string, number], Row>(
    "DELETE FROM store_portal_credentials WHERE digest = ? AND kind = ? AND expires_at > ? RETURNING subscriber_id, expires_at",
  );
  const find = db.prepare<[string, string, number], Row>(
    "SELECT subscriber_id, expires_at FROM store_portal_credentials WHERE digest = ? AND kind = ? AND expires_at > ?",
  );
  const remove = db.prepare<[string, string]>(
    "DELETE FROM store_portal_credentials WHERE digest = ? AND kind = ?",
  );
  const removeAll = db.prepare<[number]>("DELETE FROM store_portal_credentials WHERE subscriber_id = ?");
  const sweep = db.prepare<[number]>("DELETE FROM store_portal_credentials WHERE expires_at <= ?");
  const toRow = (row: Row | undefined) =>
    row && { subscriberId: Number(row.subscriber_id), expiresAt: Number(row.expires_at) };
  return {
    async insert(digest, kind, row) {
      insert.run(digest, kind, row.subscriberId, row.expiresAt);
    },
    async take(digest, kind, now) {
      return toRow(take.get(digest, kind, now));
    },
    async find(digest, kind, now) {
      return toRow(find.get(digest, kind, now));
    },
    async remove(digest, kind) {
      return remove.run(digest, kind).changes > 0;
    },
    async removeAll(subscriberId) {
      return removeAll.run(subscriberId).changes;
    },
    async sweep(now) {
      sweep.run(now);
    },
  };
}
