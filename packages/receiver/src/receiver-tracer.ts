import { trace } from "@opentelemetry/api";

/**
 * The receiver's spans (`verify`, `handle`) go through the OpenTelemetry API alone (no Node
 * built-in, so the fetch build keeps it): without an SDK registered they are no-ops.
 */
export const receiverTracer = trace.getTracer("@plant-store/receiver");
