import { openStore, type Store } from "../open-store.js";
import { resolveSecretsCipher } from "../resolve-secrets-cipher.js";
import { printLine } from "./cli-streams.js";

/** Runs one CLI command against the store's database (with its encryption key, if any) and always closes it. */
export async function withStore<T>(
  opts: { db: string; encryptionKeyFile?: string },
  work: (store: Store) => Promise<T>,
): Promise<T> {
  const secretsCipher = resolveSecretsCipher(opts.encryptionKeyFile);
  const store = await openStore(opts.db, { secretsCipher });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

export class NotFoundError extends Error {
  readonly code = "ERR_NOT_FOUND";
  override readonly name = "NotFoundError";
}

export function print(json: boolean | undefined, value: unknown, text: string): void {
  printLine(json ? JSON.stringify(value) : text);
}
