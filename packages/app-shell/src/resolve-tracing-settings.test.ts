import { describe, expect, it } from "vitest";
import { resolveTracingSettings } from "./resolve-tracing-settings.js";

describe("resolveTracingSettings", () => {
  it("is off without an endpoint, or when OTEL_SDK_DISABLED is true", () => {
    expect(resolveTracingSettings(undefined, {}, "plant-store")).toEqual({ ok: true, settings: undefined });
    expect(resolveTracingSettings(" ", {}, "plant-store")).toEqual({ ok: true, settings: undefined });
    expect(
      resolveTracingSettings("http://127.0.0.1:4318", { OTEL_SDK_DISABLED: "true" }, "plant-store"),
    ).toEqual({ ok: true, settings: undefined });
  });

  it("appends /v1/traces to the base URL as OTEL_EXPORTER_OTLP_ENDPOINT is read, keeping a URL that has it", () => {
    const traces = (endpoint: string) =>
      (resolveTracingSettings(endpoint, {}, "plant-store") as { settings: { tracesUrl: string } }).settings
        .tracesUrl;
    expect(traces("http://127.0.0.1:4318")).toBe("http://127.0.0.1:4318/v1/traces");
    expect(traces("http://collector:4318/")).toBe("http://collector:4318/v1/traces");
    expect(traces("https://otel.example/prefix")).toBe("https://otel.example/prefix/v1/traces");
    expect(traces("http://127.0.0.1:4318/v1/traces")).toBe("http://127.0.0.1:4318/v1/traces");
  });

  it("names the service from OTEL_SERVICE_NAME, or the app's default", () => {
    const name = (env: NodeJS.ProcessEnv) =>
      (
        resolveTracingSettings("http://127.0.0.1:4318", env, "plant-store") as {
          settings: { serviceName: string };
        }
      ).settings.serviceName;
    expect(name({})).toBe("plant-store");
    expect(name({ OTEL_SERVICE_NAME: "shop-webhooks" })).toBe("shop-webhooks");
  });

  it("refuses what is not an http(s) URL, naming the flag and the variable", () => {
    for (const bad of ["collector:4318", "ftp://collector", "not a url"])
      expect(resolveTracingSettings(bad, {}, "plant-store")).toEqual({
        ok: false,
        problem: "--otel-endpoint (OTEL_EXPORTER_OTLP_ENDPOINT): must be an http(s) URL",
      });
  });
});
