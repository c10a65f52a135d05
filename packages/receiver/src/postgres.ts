export {
  createPostgresCursorStore,
  type PostgresCursorStoreOptions,
} from "./create-postgres-cursor-store.js";
export { createPostgresDedupStore, type PostgresDedupStoreOptions } from "./create-postgres-dedup-store.js";
