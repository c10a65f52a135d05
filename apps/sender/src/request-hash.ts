import { createHash } from "node:crypto";

/** A fingerprint of an add-plant request, stored with its idempotency key to tell a retry from a different request. */
export function requestHash(input: { name: string; tag?: string | undefined }): string {
  return createHash("sha256")
    .update(JSON.stringify([input.name, input.tag ?? null]))
    .digest("base64url");
}
