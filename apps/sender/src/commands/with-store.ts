import { openStore, type Store } from "../open-store.js";

/** Runs one CLI command against the store's database and always closes it. */
export async function withStore<T>(db: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(db);
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
  console.log(json ? JSON.stringify(value) : text);
}
