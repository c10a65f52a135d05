import { createHash } from "node:crypto";
import type { NewPlant } from "@plant-store/types";

/** A fingerprint of an add-plant request, stored with its idempotency key to tell a retry from a different request. */
export function requestHash(input: Pick<NewPlant, "name" | "tag">): string {
  return createHash("sha256")
    .update(JSON.stringify([input.name, input.tag ?? null]))
    .digest("base64url");
}
