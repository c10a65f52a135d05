import { ProxyTracerProvider, trace } from "@opentelemetry/api";

const NAME = "@plant-store/receiver";

/**
 * The receiver's spans (`verify`, `handle`) go through the OpenTelemetry API alone (no Node
 * built-in, so the fetch build keeps it): without an SDK registered they are no-ops.
 */
export const receiverTracer = trace.getTracer(NAME);

/**
 * Whether an SDK is registered now (asked per request: one may be registered after the receiver is
 * made). Without one every span and context is a no-op, and making them is a tenth of the receive
 * path's own cost. A provider that is not the API's proxy (another copy of the API) counts as one.
 */
export function isTracing(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer(NAME) !== undefined;
}
