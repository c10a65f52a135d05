import { parseTraceparent, TRACEPARENT_HEADER, type Traceparent } from "@plant-store/types";
import { headerValue, type IncomingHeaders } from "./header-value.js";

/** A request's valid `traceparent`: the header's text and its parsed fields. */
export interface ReceivedTraceparent extends Traceparent {
  value: string;
}

/**
 * The request's `traceparent` when it is one valid W3C value, else undefined: a malformed or
 * repeated one is ignored (a trace is a hint, never a reason to refuse a delivery). Read and parsed
 * once per request: the spans use the fields, the handler's `delivery` the text.
 */
export function readTraceparent(headers: IncomingHeaders): ReceivedTraceparent | undefined {
  const value = headerValue(headers, TRACEPARENT_HEADER);
  const parsed = parseTraceparent(value);
  return parsed === undefined ? undefined : { ...parsed, value: value as string };
}
