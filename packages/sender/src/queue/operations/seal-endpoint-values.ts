import { EncryptionKeyRequiredError } from "../../errors.js";
import type { EndpointChanges } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { sql } from "../sql.js";

/** The stored forms of an endpoint's new token, secrets and static headers (`undefined` where unchanged). */
export interface SealedValues {
  token: string | undefined;
  secrets: string | undefined;
  /** null: none (`{}`), nothing to seal. */
  headers: string | null | undefined;
}

/**
 * Seals an endpoint's token, secrets and static headers (their values are secrets too) as they are stored. An outbox opened without a key refuses, before
 * it writes, to put a plain value beside encrypted ones: the database was set up with a key, and a value
 * written without it would sit there readable.
 */
export function* sealEndpointValues(
  ctx: QueueContext,
  changes: Pick<EndpointChanges, "token" | "secrets" | "headers">,
): Operation<SealedValues> {
  const { codec } = ctx;
  const headers =
    changes.headers === undefined
      ? undefined
      : Object.keys(changes.headers).length === 0
        ? null
        : JSON.stringify(changes.headers);
  if (
    !codec.encrypts &&
    (typeof changes.token === "string" || changes.secrets !== undefined || typeof headers === "string")
  ) {
    const encrypted = yield* row(
      sql`SELECT 1 AS found FROM webhook_endpoints
          WHERE (substr(token, 1, 4) = 'enc:' AND substr(token, 1, 10) <> 'enc:plain:')
             OR (substr(secrets, 1, 4) = 'enc:' AND substr(secrets, 1, 10) <> 'enc:plain:')
             OR (substr(headers, 1, 4) = 'enc:' AND substr(headers, 1, 10) <> 'enc:plain:')
          LIMIT 1`,
    );
    if (encrypted)
      throw new EncryptionKeyRequiredError(
        "This store holds encrypted tokens and secrets: open it with the encryption key to change them",
      );
  }
  return {
    // null (no token) is stored as "", which holds nothing to seal.
    token: changes.token === undefined ? undefined : changes.token === null ? "" : codec.seal(changes.token),
    secrets: changes.secrets === undefined ? undefined : codec.seal(JSON.stringify(changes.secrets)),
    headers: typeof headers === "string" ? codec.seal(headers) : headers,
  };
}
