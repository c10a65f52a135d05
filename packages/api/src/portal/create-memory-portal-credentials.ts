import type {
  PortalCredentialKind,
  PortalCredentialRow,
  PortalCredentialRows,
} from "./portal-credential-rows.js";

/**
 * Portal credentials in this process's memory: for an outbox whose database the API cannot reach. A link
 * is used once and a revocation holds in this process only; pass rows in the outbox's database
 * (`createPostgresPortalCredentials`) when several processes serve the portal.
 */
export function createMemoryPortalCredentials(): PortalCredentialRows {
  const rows = new Map<string, PortalCredentialRow & { kind: PortalCredentialKind }>();
  const live = (digest: string, kind: PortalCredentialKind, now: number) => {
    const row = rows.get(digest);
    return row && row.kind === kind && row.expiresAt > now ? row : undefined;
  };
  const shown = (row: PortalCredentialRow | undefined) =>
    row && { subscriberId: row.subscriberId, expiresAt: row.expiresAt };
  return {
    async insert(digest, kind, row) {
      rows.set(digest, { ...row, kind });
    },
    async take(digest, kind, now) {
      const row = live(digest, kind, now);
      if (row) rows.delete(digest);
      return shown(row);
    },
    async find(digest, kind, now) {
      return shown(live(digest, kind, now));
    },
    async remove(digest, kind) {
      if (rows.get(digest)?.kind !== kind) return false;
      return rows.delete(digest);
    },
    async removeAll(subscriberId) {
      let removed = 0;
      for (const [digest, row] of rows)
        if (row.subscriberId === subscriberId) {
          rows.delete(digest);
          removed += 1;
        }
      return removed;
    },
    async sweep(now) {
      for (const [digest, row] of rows) if (row.expiresAt <= now) rows.delete(digest);
    },
  };
}
