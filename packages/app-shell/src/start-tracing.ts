import type { TracingSettings } from "./resolve-tracing-settings.js";

export interface Tracing {
  /** Exports the spans still buffered, then stops: call it before the process exits. */
  shutdown(): Promise<void>;
}

/**
 * Registers the official OpenTelemetry SDK for this process, exporting spans over OTLP/HTTP (JSON)
 * in batches. The SDK is imported here, only when tracing is asked for: without an endpoint, no SDK
 * code is loaded and the libraries' spans stay no-ops of `@opentelemetry/api`.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracing> {
  const [
    { BatchSpanProcessor, NodeTracerProvider },
    { OTLPTraceExporter },
    { defaultResource, resourceFromAttributes },
  ] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ "service.name": settings.serviceName })),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }))],
  });
  // Also installs the async context manager (a handler's own spans nest under `handle`) and the W3C propagator.
  provider.register();
  return { shutdown: () => provider.shutdown() };
}
