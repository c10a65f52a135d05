import { MAX_ENDPOINTS, SUBSCRIBER_ENDPOINT_CAPS } from "@plant-store/api";
import {
  ConfigError,
  createLogger,
  resolveTracingSettings,
  startTracing,
  stopOnSignals,
} from "@plant-store/app-shell";
import { DELIVERY_TIMEOUT_MS } from "@plant-store/types";
import { Command, Option } from "commander";
import { parseConfig } from "../parse-config.js";
import { runServe } from "../run-serve.js";
import { ADMIN_SERVER_DEFAULTS, ServeConfigSchema } from "../serve-config.js";
import { dbOption, encryptionKeyFileOption } from "./db-option.js";
import { flagOption } from "./flag-option.js";
import { readFlag } from "./read-flag.js";

export function serveCommand(): Command {
  return new Command("serve")
    .description("Run the delivery worker and the admin API (GET /healthz, GET /metrics)")
    .addOption(dbOption())
    .addOption(encryptionKeyFileOption())
    .addOption(
      new Option("--port <n>", "admin API port (0 = any free port)").env("PLANT_STORE_PORT").default("8780"),
    )
    .addOption(new Option("--host <host>", "admin API address").env("PLANT_STORE_HOST").default("127.0.0.1"))
    .addOption(
      new Option("--admin-token <token>", "bearer token for the admin API").env("PLANT_STORE_ADMIN_TOKEN"),
    )
    .addOption(
      flagOption(
        "--allow-private-targets",
        "deliver to loopback and private addresses (development), for the operator's own endpoints only",
        "PLANT_STORE_ALLOW_PRIVATE_TARGETS",
      ),
    )
    .addOption(
      flagOption(
        "--allow-private-targets-for-subscribers",
        "let subscribers' endpoints reach loopback and private addresses too (development; a subscriber is a stranger)",
        "PLANT_STORE_ALLOW_PRIVATE_TARGETS_FOR_SUBSCRIBERS",
      ),
    )
    .addOption(
      new Option(
        "--max-subscriber-endpoints <n>",
        `endpoints one subscriber may have (the operator's own: ${MAX_ENDPOINTS}); of them at most ${SUBSCRIBER_ENDPOINT_CAPS.rateLimited} rate-limited and ${SUBSCRIBER_ENDPOINT_CAPS.perUrl} at one URL`,
      )
        .env("PLANT_STORE_MAX_SUBSCRIBER_ENDPOINTS")
        .default(String(SUBSCRIBER_ENDPOINT_CAPS.endpoints)),
    )
    .addOption(
      new Option("--retry-schedule <list>", "delay before each attempt")
        .env("PLANT_STORE_RETRY_SCHEDULE")
        .default("0,5s,5m,30m,2h,5h,10h,10h"),
    )
    .addOption(
      new Option("--concurrency <n>", "attempts in flight at once")
        .env("PLANT_STORE_CONCURRENCY")
        .default("16"),
    )
    .addOption(
      new Option("--per-endpoint-concurrency <n>", "attempts in flight at once per endpoint")
        .env("PLANT_STORE_PER_ENDPOINT_CONCURRENCY")
        .default("2"),
    )
    .addOption(
      new Option("--lease <duration>", "how long a claim lasts").env("PLANT_STORE_LEASE").default("60s"),
    )
    .addOption(
      new Option("--timeout <duration>", `time per attempt, at most ${DELIVERY_TIMEOUT_MS / 1000}s`)
        .env("PLANT_STORE_TIMEOUT")
        .default(`${DELIVERY_TIMEOUT_MS / 1000}s`),
    )
    .addOption(
      new Option("--disable-after <duration>", "disable an endpoint failing continuously this long")
        .env("PLANT_STORE_DISABLE_AFTER")
        .default("5d"),
    )
    .addOption(
      new Option(
        "--alert-after <duration>",
        "alert an endpoint failing (endpoint.failing, then endpoint.recovered) once its run of failures lasts this long; default 1m, or half of --disable-after when shorter; 0: at the first failure",
      ).env("PLANT_STORE_ALERT_AFTER"),
    )
    .addOption(
      new Option(
        "--final-statuses <list>",
        "answers that fail a delivery at once instead of retrying it, e.g. 400,413,422 (default none: every non-2xx is retried)",
      ).env("PLANT_STORE_FINAL_STATUSES"),
    )
    .addOption(
      new Option(
        "--poll-interval <duration>",
        "how often to look for retries coming due and expired leases (new work wakes the worker at once)",
      )
        .env("PLANT_STORE_POLL_INTERVAL")
        .default("1s"),
    )
    .addOption(
      new Option(
        "--retention <duration>",
        "delete delivered and failed deliveries, their attempts and payloads this long after they finished (pending ones never)",
      )
        .env("PLANT_STORE_RETENTION")
        .default("30d"),
    )
    .addOption(
      new Option(
        "--headers-timeout <duration>",
        "cut off an admin-port client that has not sent its request head within this time (408)",
      )
        .env("PLANT_STORE_HEADERS_TIMEOUT")
        .default(ADMIN_SERVER_DEFAULTS.headersTimeout),
    )
    .addOption(
      new Option(
        "--request-timeout <duration>",
        "cut off an admin-port client that has not sent its whole request within this time (408)",
      )
        .env("PLANT_STORE_REQUEST_TIMEOUT")
        .default(ADMIN_SERVER_DEFAULTS.requestTimeout),
    )
    .addOption(
      new Option(
        "--max-connections-per-client <n>",
        "open admin-port connections one client address (IPv6: one /64) may hold; more are closed at once",
      )
        .env("PLANT_STORE_MAX_CONNECTIONS_PER_CLIENT")
        .default(ADMIN_SERVER_DEFAULTS.maxConnectionsPerClient),
    )
    .addOption(
      new Option(
        "--otel-endpoint <url>",
        "export OpenTelemetry spans over OTLP/HTTP to this collector base URL (/v1/traces is appended); service name from OTEL_SERVICE_NAME, default plant-store",
      ).env("OTEL_EXPORTER_OTLP_ENDPOINT"),
    )
    .action(async (raw: Record<string, unknown>) => {
      const config = parseConfig(ServeConfigSchema, {
        ...raw,
        allowPrivateTargets: readFlag(raw.allowPrivateTargets, "PLANT_STORE_ALLOW_PRIVATE_TARGETS"),
        allowPrivateTargetsForSubscribers: readFlag(
          raw.allowPrivateTargetsForSubscribers,
          "PLANT_STORE_ALLOW_PRIVATE_TARGETS_FOR_SUBSCRIBERS",
        ),
      });
      const traced = resolveTracingSettings(
        raw.otelEndpoint as string | undefined,
        process.env,
        "plant-store",
      );
      if (!traced.ok) throw new ConfigError([traced.problem]);
      const logger = createLogger({ name: "plant-store", level: process.env.LOG_LEVEL ?? "info" });
      // Registered before the outbox opens, so the first enqueue and attempt are recorded.
      const tracing = traced.settings && (await startTracing(traced.settings));
      // The origin only: a URL's user info would be a credential.
      if (traced.settings)
        logger.info(
          { serviceName: traced.settings.serviceName, collector: new URL(traced.settings.tracesUrl).origin },
          "exporting traces",
        );
      const store = await runServe(config, logger);
      stopOnSignals({
        logger,
        // The attempts in flight have ended once the store stopped: their spans go out before the process does.
        stop: async () => {
          await store.stop();
          await tracing
            ?.shutdown()
            .catch((error: unknown) => logger.warn({ err: error }, "could not export the last spans"));
        },
      });
    });
}
