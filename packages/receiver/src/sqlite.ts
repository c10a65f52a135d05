export { createSqliteDedupStore, type SqliteDedupStoreOptions } from "./create-sqlite-dedup-store.js";
