import { createHash } from "node:crypto";
import type { NewPlant } from "@plant-store/types";

/** A fingerprint of an add-plant request, stored with its idempotency key to tell a retry from a different request. */
export function requestHash(
  input: Pick<NewPlant, "name" | "tag"> & { orderingKey?: string | undefined },
): string {
  // Without an ordering key, the fingerprint of before (keys stored then still match their retries).
  const fields = [
    input.name,
    input.tag ?? null,
    ...(input.orderingKey === undefined ? [] : [input.orderingKey]),
  ];
  return createHash("sha256").update(JSON.stringify(fields)).digest("base64url");
}
