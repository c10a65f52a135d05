import type { CursorStore } from "./cursor-store.js";

/** One process only: a restart starts again from the oldest retained event (de-duplication skips what was handled). */
export function createMemoryCursorStore(): CursorStore {
  const cursors = new Map<string, string>();
  return {
    async get(key) {
      return cursors.get(key);
    },
    async set(key, cursor) {
      cursors.set(key, cursor);
    },
    async close() {
      cursors.clear();
    },
  };
}
