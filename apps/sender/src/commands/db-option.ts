import { Option } from "commander";

/** `--db`, on every command: a SQLite file or a postgres:// URL. */
export const dbOption = () =>
  new Option("--db <file|url>", "SQLite file or postgres:// URL")
    .env("PLANT_STORE_DB")
    .default("./data/store.db");

export const jsonOption = () => new Option("--json", "print machine-readable JSON").env("PLANT_STORE_JSON");
