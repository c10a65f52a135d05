import { ConfigError } from "@plant-store/app-shell";
import { DELIVERY_TIMEOUT_MS } from "@plant-store/types";
import { describe, expect, it } from "vitest";
import { serveCommand } from "./commands/serve-command.js";
import { parseConfig } from "./parse-config.js";
import { ServeConfigSchema } from "./serve-config.js";

const valid = {
  db: "./data/store.db",
  port: "8780",
  host: "127.0.0.1",
  adminToken: "0123456789abcdef",
  allowPrivateTargets: false,
  retrySchedule: "0,5s,5m",
  concurrency: "16",
  perEndpointConcurrency: "2",
  lease: "60s",
  timeout: "15s",
  disableAfter: "5d",
  pollInterval: "1s",
  retention: "30d",
  headersTimeout: "10s",
  requestTimeout: "30s",
  maxConnectionsPerClient: "64",
};

describe("parseConfig with the serve schema", () => {
  it("turns flag strings into typed settings", () => {
    expect(parseConfig(ServeConfigSchema, valid)).toMatchObject({
      port: 8780,
      retrySchedule: [0, 5000, 300_000],
      concurrency: 16,
      lease: 60_000,
      disableAfter: 432_000_000,
      retention: 2_592_000_000,
    });
    expect(parseConfig(ServeConfigSchema, { ...valid, retention: "2s" }).retention).toBe(2000);
    expect(() => parseConfig(ServeConfigSchema, { ...valid, retention: "500ms" })).toThrow(
      "--retention (PLANT_STORE_RETENTION): must be at least 1s",
    );
  });

  it("reports every problem at once with flag and environment variable", () => {
    const broken = {
      ...valid,
      port: "-1",
      adminToken: "short",
      lease: "forever",
      perEndpointConcurrency: "x",
    };
    let error: unknown;
    try {
      parseConfig(ServeConfigSchema, broken);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain("--port (PLANT_STORE_PORT)");
    expect(message).toContain("--admin-token (PLANT_STORE_ADMIN_TOKEN)");
    expect(message).toContain("--lease (PLANT_STORE_LEASE)");
    expect(message).toContain("--per-endpoint-concurrency (PLANT_STORE_PER_ENDPOINT_CONCURRENCY)");
    expect(message).not.toContain("short");
  });

  it("defaults the admin port's timeouts to the receiver's and caps connections per client", () => {
    const defaults = Object.fromEntries(
      serveCommand()
        .options.filter((option) =>
          ["--headers-timeout", "--request-timeout", "--max-connections-per-client"].includes(
            option.long ?? "",
          ),
        )
        .map((option) => [option.attributeName(), option.defaultValue]),
    );
    expect(parseConfig(ServeConfigSchema, { ...valid, ...defaults })).toMatchObject({
      headersTimeout: 10_000,
      requestTimeout: 2 * DELIVERY_TIMEOUT_MS,
      maxConnectionsPerClient: 64,
    });
    expect(() => parseConfig(ServeConfigSchema, { ...valid, headersTimeout: "31s" })).toThrow(
      "--headers-timeout (PLANT_STORE_HEADERS_TIMEOUT): must not be longer than --request-timeout",
    );
    expect(() => parseConfig(ServeConfigSchema, { ...valid, maxConnectionsPerClient: "0" })).toThrow(
      "--max-connections-per-client (PLANT_STORE_MAX_CONNECTIONS_PER_CLIENT)",
    );
  });

  it("reads --final-statuses as a list of non-2xx HTTP statuses, none by default", () => {
    expect(parseConfig(ServeConfigSchema, valid).finalStatuses).toEqual([]);
    expect(parseConfig(ServeConfigSchema, { ...valid, finalStatuses: "" }).finalStatuses).toEqual([]);
    expect(parseConfig(ServeConfigSchema, { ...valid, finalStatuses: "400, 413,422" }).finalStatuses).toEqual(
      [400, 413, 422],
    );
    for (const [list, problem] of [
      ["400,204", "(value 2): must not be a 2xx"],
      ["400,,422", "(value 2): must be an HTTP status, 100 to 599"],
      ["bad", "(value 1): must be an HTTP status, 100 to 599"],
      ["600", "(value 1): must be an HTTP status, 100 to 599"],
      ["400.5", "(value 1): must be an HTTP status, 100 to 599"],
    ]) {
      expect(() => parseConfig(ServeConfigSchema, { ...valid, finalStatuses: list }), list).toThrow(
        `--final-statuses (PLANT_STORE_FINAL_STATUSES) ${problem}`,
      );
    }
  });

  it("refuses a lease that an attempt could outlast", () => {
    expect(() => parseConfig(ServeConfigSchema, { ...valid, lease: "20s", timeout: "15s" })).toThrow(
      /--lease \(PLANT_STORE_LEASE\): must be more than twice --timeout/,
    );
  });

  it("defaults --timeout to the contract's DELIVERY_TIMEOUT_MS and refuses anything longer", () => {
    const option = serveCommand().options.find((candidate) => candidate.long === "--timeout");
    const timeout = String(option?.defaultValue);
    expect(parseConfig(ServeConfigSchema, { ...valid, timeout }).timeout).toBe(DELIVERY_TIMEOUT_MS);
    expect(parseConfig(ServeConfigSchema, { ...valid, timeout: "250ms" }).timeout).toBe(250);
    for (const tooLong of [`${DELIVERY_TIMEOUT_MS + 1}ms`, "16s", "1m"]) {
      expect(() => parseConfig(ServeConfigSchema, { ...valid, timeout: tooLong, lease: "1h" })).toThrow(
        /--timeout \(PLANT_STORE_TIMEOUT\): must be at most 15s/,
      );
    }
    expect(() => parseConfig(ServeConfigSchema, { ...valid, timeout: "0" })).toThrow(/--timeout/);
  });

  it("reads --allow-private-targets from its variable by value: false, 0, no and empty are off", () => {
    const allow = (value: unknown) =>
      parseConfig(ServeConfigSchema, { ...valid, allowPrivateTargets: value });
    for (const off of [undefined, false, "false", "0", "no", "", " FALSE ", "No"])
      expect(allow(off).allowPrivateTargets, String(off)).toBe(false);
    for (const on of [true, "true", "1", "yes", "TRUE", "Yes"])
      expect(allow(on).allowPrivateTargets, String(on)).toBe(true);
  });

  it("refuses a boolean setting that is neither on nor off, reported with every other problem", () => {
    for (const unclear of ["maybe", "off", "2", "y"]) {
      let error: unknown;
      try {
        parseConfig(ServeConfigSchema, { ...valid, allowPrivateTargets: unclear, port: "-1" });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as ConfigError).message;
      expect(message).toContain("--allow-private-targets (PLANT_STORE_ALLOW_PRIVATE_TARGETS): must be true");
      expect(message).toContain("--port (PLANT_STORE_PORT)");
    }
  });
});
