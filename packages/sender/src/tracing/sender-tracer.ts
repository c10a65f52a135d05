import { trace } from "@opentelemetry/api";

/**
 * The sender's spans (`enqueue`, `attempt`) go through the OpenTelemetry API alone: without an SDK
 * registered by the application they cost a no-op span each, and nothing is exported.
 */
export const senderTracer = trace.getTracer("@plant-store/sender");
