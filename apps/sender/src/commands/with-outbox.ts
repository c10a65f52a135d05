import type { Outbox } from "@plant-store/sender";
import { openOutbox } from "../open-outbox.js";

/** Runs one CLI command against the outbox and always closes it. */
export async function withOutbox<T>(db: string, work: (outbox: Outbox) => Promise<T>): Promise<T> {
  const outbox = await openOutbox(db);
  try {
    return await work(outbox);
  } finally {
    await outbox.close();
  }
}

export class NotFoundError extends Error {
  readonly code = "ERR_NOT_FOUND";
  override readonly name = "NotFoundError";
}

export function print(json: boolean | undefined, value: unknown, text: string): void {
  console.log(json ? JSON.stringify(value) : text);
}
