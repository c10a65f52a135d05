import { InvalidTraceparentError } from "./invalid-traceparent-error.js";

/** The W3C Trace Context header a delivery carries (https://www.w3.org/TR/trace-context/#traceparent-header). */
export const TRACEPARENT_HEADER = "traceparent";

/** The fields of a `traceparent` header: ids as lower-case hex, flags as a number (bit 0: sampled). */
export interface Traceparent {
  /** 32 hex digits (16 bytes), not all zero. */
  traceId: string;
  /** 16 hex digits (8 bytes), not all zero: the span that made the request. */
  parentId: string;
  /** 0 to 255; 1 means sampled. */
  flags: number;
}

const VERSION_00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
// A later version may append fields after the flags, each behind a dash; its first four fields keep
// the version 00 layout (the spec's rule for parsing a version it does not know).
const LATER_VERSION = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-|$)/;
const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_PARENT_ID = "0".repeat(16);

/**
 * Reads a `traceparent` header value, or answers undefined for anything the spec says to ignore:
 * wrong length or layout, upper-case hex, version `ff`, an all-zero trace or parent id, or extra
 * fields on version 00. A value this refuses is dropped, never an error: a trace is a hint.
 */
export function parseTraceparent(value: string | undefined | null): Traceparent | undefined {
  if (typeof value !== "string" || value.length < 55) return undefined;
  let fields = VERSION_00.exec(value)?.slice(1);
  if (fields === undefined) {
    const later = LATER_VERSION.exec(value);
    if (later === null || later[1] === "00" || later[1] === "ff") return undefined;
    fields = later.slice(2);
  }
  const [traceId, parentId, flags] = fields as [string, string, string];
  if (traceId === ZERO_TRACE_ID || parentId === ZERO_PARENT_ID) return undefined;
  return { traceId, parentId, flags: Number.parseInt(flags, 16) };
}

/** Writes a version 00 `traceparent` value; throws `InvalidTraceparentError` for ids or flags no receiver would accept. */
export function formatTraceparent(parts: Traceparent): string {
  const flags = parts.flags;
  if (!Number.isInteger(flags) || flags < 0 || flags > 255)
    throw new InvalidTraceparentError("traceparent flags must be an integer from 0 to 255");
  const value = `00-${parts.traceId}-${parts.parentId}-${flags.toString(16).padStart(2, "0")}`;
  if (parseTraceparent(value) === undefined)
    throw new InvalidTraceparentError(
      "traceparent needs a 32-digit and a 16-digit lower-case hex id, neither all zeros",
    );
  return value;
}
