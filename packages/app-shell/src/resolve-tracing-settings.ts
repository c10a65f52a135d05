/** Where and as whom the app exports its spans. */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL spans are POSTed to. */
  tracesUrl: string;
  serviceName: string;
}

export type TracingSettingsResult =
  | { ok: true; settings: TracingSettings | undefined }
  | { ok: false; problem: string };

const TRACES_PATH = "/v1/traces";

/**
 * Reads `--otel-endpoint` (or `OTEL_EXPORTER_OTLP_ENDPOINT`, which commander puts in its place) the
 * way OpenTelemetry SDKs read that variable: a base URL to which `/v1/traces` is appended (a URL that
 * already ends in it is kept). No endpoint, or `OTEL_SDK_DISABLED=true`, means no tracing at all.
 */
export function resolveTracingSettings(
  endpoint: string | undefined,
  env: NodeJS.ProcessEnv,
  defaultServiceName: string,
): TracingSettingsResult {
  if (endpoint === undefined || endpoint.trim() === "" || env.OTEL_SDK_DISABLED?.trim() === "true")
    return { ok: true, settings: undefined };
  let url: URL;
  try {
    url = new URL(endpoint.trim());
  } catch {
    return { ok: false, problem: "--otel-endpoint (OTEL_EXPORTER_OTLP_ENDPOINT): must be an http(s) URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { ok: false, problem: "--otel-endpoint (OTEL_EXPORTER_OTLP_ENDPOINT): must be an http(s) URL" };
  const base = url.href.replace(/\/+$/, "");
  const tracesUrl = new URL(base).pathname.endsWith(TRACES_PATH) ? base : `${base}${TRACES_PATH}`;
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || defaultServiceName;
  return { ok: true, settings: { tracesUrl, serviceName } };
}
