export { createPostgresDedupStore, type PostgresDedupStoreOptions } from "./create-postgres-dedup-store.js";
