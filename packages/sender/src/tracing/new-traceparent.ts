import { randomBytes } from "node:crypto";
import { formatTraceparent } from "@plant-store/types";

/**
 * A fresh trace for a message enqueued with no OpenTelemetry span to join (no SDK, or no span
 * active): random ids, flagged sampled so that a receiver which traces records its side under the
 * store's trace id instead of dropping it.
 */
export function newTraceparent(): string {
  let bytes = randomBytes(24);
  // An all-zero id is invalid; 2^-64 odds, but a header receivers drop would defeat the point.
  while (bytes.subarray(0, 16).every((b) => b === 0) || bytes.subarray(16).every((b) => b === 0))
    bytes = randomBytes(24);
  const hex = bytes.toString("hex");
  return formatTraceparent({ traceId: hex.slice(0, 32), parentId: hex.slice(32), flags: 1 });
}
