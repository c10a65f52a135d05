import { withTransaction } from "@plant-store/sender/postgres";
import type pg from "pg";
import { type PortalCredentialRows, storePortalSchema } from "./portal-credential-rows.js";

// Serialises the table's creation when several store processes start at once.
const MIGRATION_LOCK = 0x706f7274;

interface Row {
  subscriber_id: string;
  expires_at: string;
}

/** Portal credentials in the outbox's PostgreSQL database. */
export async function createPostgresPortalCredentials(pool: pg.Pool): Promise<PortalCredentialRows> {
  await withTransaction(pool, async (client) => {
    // A complete schema is only looked at: DDL, even IF NOT EXISTS, takes locks a running store would wait on.
    const exists = await client.query("SELECT 1 WHERE to_regclass('store_portal_credentials') IS NOT NULL");
    if (exists.rowCount) return;
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(storePortalSchema("BIGINT"));
  });
  // pg hands a BIGINT over as text.
  const toRow = (row: Row | undefined) =>
    row && { subscriberId: Number(row.subscriber_id), expiresAt: Number(row.expires_at) };
  return {
    async insert(digest, kind, row) {
      await pool.query(
        "INSERT INTO store_portal_credentials (digest, kind, subscriber_id, expires_at) VALUES ($1, $2, $3, $4)",
        [digest, kind, row.subscriberId, row.expiresAt],
      );
    },
    async take(digest, kind, now) {
      const { rows } = await pool.query<Row>(
        "DELETE FROM store_portal_credentials WHERE digest = $1 AND kind = $2 AND expires_at > $3 RETURNING subscriber_id, expires_at",
        [digest, kind, now],
      );
      return toRow(rows[0]);
    },
    async find(digest, kind, now) {
      const { rows } = await pool.query<Row>(
        "SELECT subscriber_id, expires_at FROM store_portal_credentials WHERE digest = $1 AND kind = $2 AND expires_at > $3",
        [digest, kind, now],
      );
      return toRow(rows[0]);
    },
    async remove(digest, kind) {
      const { rowCount } = await pool.query(
        "DELETE FROM store_portal_credentials WHERE digest = $1 AND kind = $2",
        [digest, kind],
      );
      return (rowCount ?? 0) > 0;
    },
    async removeAll(subscriberId) {
      const { rowCount } = await pool.query("DELETE FROM store_portal_credentials WHERE subscriber_id = $1", [
        subscriberId,
      ]);
      return rowCount ?? 0;
    },
    async sweep(now) {
      await pool.query("DELETE FROM store_portal_credentials WHERE expires_at <= $1", [now]);
    },
  };
}
