import { readFileSync } from "node:fs";
import { ConfigError } from "@plant-store/app-shell/settings";
import { createAesGcmCipher, type SecretsCipher } from "@plant-store/sender";

export const ENCRYPTION_KEY_ENV = "PLANT_STORE_ENCRYPTION_KEY";
export const ENCRYPTION_KEY_FILE_ENV = "PLANT_STORE_ENCRYPTION_KEY_FILE";

const KEY_BYTES = 32;

/** A key as an operator writes it: 64 hex digits, or base64 / base64url of 32 bytes. */
function decodeKey(text: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return undefined;
  const bytes = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return bytes.length === KEY_BYTES ? bytes : undefined;
}

function parseKeys(text: string, where: string): Buffer[] {
  // One key per line or comma-separated; `#` starts a comment to the end of its line.
  const entries = text
    .split("\n")
    .flatMap((line) => line.replace(/#.*/, "").split(/[\s,]+/))
    .filter((entry) => entry !== "");
  if (entries.length === 0) throw new ConfigError([`${where}: holds no key`]);
  const problems: string[] = [];
  const keys = entries.map((entry, index) => {
    const key = decodeKey(entry);
    // The position only: a key, even a malformed one, is never printed.
    if (!key) problems.push(`${where}: key ${index + 1} is not 32 bytes as 64 hex digits or base64`);
    return key as Buffer;
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return keys;
}

/**
 * The cipher for endpoint tokens and signing secrets, from `--encryption-key-file` (one key per line) or
 * `PLANT_STORE_ENCRYPTION_KEY` (comma-separated), or none. Either holds a list: the first key encrypts,
 * every key decrypts, so a rotation is "put the new key first, run `endpoints re-encrypt`, drop the old".
 * The key itself is never accepted as a flag: it would show in `ps` and in shell history.
 */
export function resolveSecretsCipher(
  keyFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): SecretsCipher | undefined {
  const inline = env[ENCRYPTION_KEY_ENV];
  const flag = `--encryption-key-file (${ENCRYPTION_KEY_FILE_ENV})`;
  if (keyFile !== undefined && keyFile !== "" && inline !== undefined && inline !== "")
    throw new ConfigError([`${flag}: give it or ${ENCRYPTION_KEY_ENV}, not both`]);
  if (keyFile !== undefined && keyFile !== "") {
    let text: string;
    try {
      text = readFileSync(keyFile, "utf8");
    } catch (error) {
      throw new ConfigError([
        `${flag}: cannot read ${keyFile} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      ]);
    }
    return createAesGcmCipher({ keys: parseKeys(text, flag) });
  }
  if (inline !== undefined && inline !== "")
    return createAesGcmCipher({ keys: parseKeys(inline, ENCRYPTION_KEY_ENV) });
  return undefined;
}
