export { createSqliteCursorStore, type SqliteCursorStoreOptions } from "./create-sqlite-cursor-store.js";
export { createSqliteDedupStore, type SqliteDedupStoreOptions } from "./create-sqlite-dedup-store.js";
