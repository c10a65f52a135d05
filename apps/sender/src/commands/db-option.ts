import { Option } from "commander";
import { flagOption } from "./flag-option.js";

/** `--db`, on every command: a SQLite file or a postgres:// URL. */
export const dbOption = () =>
  new Option("--db <file|url>", "SQLite file or postgres:// URL")
    .env("PLANT_STORE_DB")
    .default("./data/store.db");

/** `--encryption-key-file`, on every command that opens the store; the key itself only ever comes from a file or the environment. */
export const encryptionKeyFileOption = () =>
  new Option(
    "--encryption-key-file <path>",
    "file of 32-byte keys (hex or base64, one per line; the first encrypts, all decrypt) for endpoint tokens and secrets at rest; or set PLANT_STORE_ENCRYPTION_KEY",
  ).env("PLANT_STORE_ENCRYPTION_KEY_FILE");

/** `--json`: its variable is read by `resolveJsonFlag`, so `PLANT_STORE_JSON=false` means text. */
export const jsonOption = () => flagOption("--json", "print machine-readable JSON", "PLANT_STORE_JSON");
