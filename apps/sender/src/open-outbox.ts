import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Outbox } from "@plant-store/sender";

export const isPostgresUrl = (target: string) => /^postgres(ql)?:\/\//.test(target);

/**
 * Opens the outbox named by `--db`: a postgres:// URL, or a SQLite file (its directory is created).
 * Each store is imported only when used, so SQLite users never load pg and vice versa.
 */
export async function openOutbox(target: string, onError?: (error: Error) => void): Promise<Outbox> {
  if (isPostgresUrl(target)) {
    const { createPostgresOutbox } = await import("@plant-store/sender/postgres");
    return createPostgresOutbox(target, onError ? { onError } : {});
  }
  mkdirSync(dirname(target), { recursive: true });
  const { createSqliteOutbox } = await import("@plant-store/sender/sqlite");
  return createSqliteOutbox(target);
}
