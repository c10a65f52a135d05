import { Option } from "commander";
import { flagOption } from "./flag-option.js";

/** `--db`, on every command: a SQLite file or a postgres:// URL. */
export const dbOption = () =>
  new Option("--db <file|url>", "SQLite file or postgres:// URL")
    .env("PLANT_STORE_DB")
    .default("./data/store.db");

/** `--json`: its variable is read by `resolveJsonFlag`, so `PLANT_STORE_JSON=false` means text. */
export const jsonOption = () => flagOption("--json", "print machine-readable JSON", "PLANT_STORE_JSON");
