import { parseTraceparent, TRACEPARENT_HEADER } from "@plant-store/types";
import { headerValue, type IncomingHeaders } from "./header-value.js";

/**
 * The request's `traceparent` when it is one valid W3C value, else undefined: a malformed or
 * repeated one is ignored (a trace is a hint, never a reason to refuse a delivery).
 */
export function readTraceparent(headers: IncomingHeaders): string | undefined {
  const value = headerValue(headers, TRACEPARENT_HEADER);
  return value !== undefined && parseTraceparent(value) !== undefined ? value : undefined;
}
