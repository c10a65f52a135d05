#!/usr/bin/env node
import type { AddressInfo } from "node:net";
import {
  createHttpServer,
  createLogger,
  logPoolError,
  resolveTracingSettings,
  startTracing,
  stopOnSignals,
  type TracingSettings,
} from "@plant-store/app-shell";
import { Command, CommanderError, Option } from "commander";
import { createApp } from "./create-app.js";
import { createPlantEvents } from "./create-plant-events.js";
import {
  ConfigError,
  DEFAULT_CATCH_UP_EVERY,
  DEFAULT_EVENT_STREAM_LIMITS,
  DEFAULT_SERVER,
  DEFAULT_TIMEOUTS,
  LOG_LEVELS,
  loadConfig,
  MEMORY_DB_WARNING,
  type RawReceiverOptions,
  type ReceiverConfig,
} from "./load-config.js";
import { openStorage } from "./open-storage.js";
import { splitKnownArgs } from "./split-known-args.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

const program = new Command("plant-receiver")
  .description("Receives the Plant Store's New Plant webhook, stores plants and shows them live.")
  .addOption(
    new Option("--port <port>", "port to listen on (0 picks a free one)")
      .env("PLANT_RECEIVER_PORT")
      .default(DEFAULT_SERVER.port),
  )
  .addOption(
    new Option("--host <host>", "address to listen on")
      .env("PLANT_RECEIVER_HOST")
      .default(DEFAULT_SERVER.host),
  )
  .addOption(
    new Option("--token <token>", "accepted bearer token; repeat for rotation (env: comma-separated)")
      .env("PLANT_RECEIVER_TOKENS")
      .argParser(collect),
  )
  .addOption(
    new Option(
      "--secret <whsec>",
      "accepted whsec_ signing secret; repeat for rotation (env: comma-separated)",
    )
      .env("PLANT_RECEIVER_SECRETS")
      .argParser(collect),
  )
  .addOption(
    new Option(
      "--read-token <token>",
      "token for the read side (/, /plants, /deliveries, /events, /metrics), at least 16 characters: Authorization: Bearer <token>, or sign in on the live page (/) with it or with a single-use link from POST /login-codes; repeat for rotation (env: comma-separated). Without one the read side is off",
    )
      .env("PLANT_RECEIVER_READ_TOKENS")
      .argParser(collect),
  )
  .addOption(
    new Option("--db <target>", `SQLite file, :memory:, or postgres://... URL. Warning: ${MEMORY_DB_WARNING}`)
      .env("PLANT_RECEIVER_DB")
      .default(DEFAULT_SERVER.db),
  )
  .addOption(
    // Checked by loadConfig with everything else, not by commander's .choices(), which would exit
    // before the other settings are looked at.
    new Option("--log-level <level>", `log level: ${LOG_LEVELS.join(", ")}`)
      .env("PLANT_RECEIVER_LOG_LEVEL")
      .default(DEFAULT_SERVER.logLevel),
  )
  .addOption(
    new Option(
      "--headers-timeout <duration>",
      "cut off a client that has not sent its request head within this time (408)",
    )
      .env("PLANT_RECEIVER_HEADERS_TIMEOUT_MS")
      .default(DEFAULT_TIMEOUTS.headersTimeoutMs),
  )
  .addOption(
    new Option(
      "--body-timeout <duration>",
      "answer 408 to a webhook whose body has not arrived within this time",
    )
      .env("PLANT_RECEIVER_BODY_TIMEOUT_MS")
      .default(DEFAULT_TIMEOUTS.bodyTimeoutMs),
  )
  .addOption(
    new Option(
      "--request-timeout <duration>",
      "cut off a client that has not sent its whole request within this time (408)",
    )
      .env("PLANT_RECEIVER_REQUEST_TIMEOUT_MS")
      .default(DEFAULT_TIMEOUTS.requestTimeoutMs),
  )
  .addOption(
    new Option(
      "--db-busy-timeout <duration>",
      "how long a database statement may wait for a lock (SQLite busy timeout, PostgreSQL statement_timeout) before answering 500",
    )
      .env("PLANT_RECEIVER_DB_BUSY_TIMEOUT_MS")
      .default(DEFAULT_TIMEOUTS.dbBusyTimeoutMs),
  )
  .addOption(
    new Option("--max-event-streams <n>", "open /events streams at most; more get 503")
      .env("PLANT_RECEIVER_MAX_EVENT_STREAMS")
      .default(DEFAULT_EVENT_STREAM_LIMITS.maxEventStreams),
  )
  .addOption(
    new Option("--max-event-streams-per-client <n>", "open /events streams from one client address at most")
      .env("PLANT_RECEIVER_MAX_EVENT_STREAMS_PER_CLIENT")
      .default(DEFAULT_EVENT_STREAM_LIMITS.maxEventStreamsPerClient),
  )
  .addOption(
    new Option(
      "--catch-up-from <url>",
      "catch up on what pushes missed from the store's events API: the endpoint's events URL (https://store.example/endpoints/<id>/events); with --catch-up-token",
    ).env("PLANT_RECEIVER_CATCH_UP_FROM"),
  )
  .addOption(
    new Option(
      "--catch-up-token <token>",
      "the credential the events API takes: the endpoint's own bearer token (the one its pushes carry), its subscriber's token, or the store's admin token",
    ).env("PLANT_RECEIVER_CATCH_UP_TOKEN"),
  )
  .addOption(
    new Option("--catch-up-every <duration>", "how often to catch up (and on start); longer after failures")
      .env("PLANT_RECEIVER_CATCH_UP_EVERY")
      .default(DEFAULT_CATCH_UP_EVERY),
  )
  .addOption(
    new Option(
      "--otel-endpoint <url>",
      "export OpenTelemetry spans over OTLP/HTTP to this collector base URL (/v1/traces is appended); service name from OTEL_SERVICE_NAME, default plant-receiver",
    ).env("OTEL_EXPORTER_OTLP_ENDPOINT"),
  )
  .addHelpText(
    "after",
    "\nCheck a running receiver (this one or any other) against the contract, from the outside:\n  plant-receiver check <url> --token <token> --secret <whsec_...> [--secret ...] [--json]\n  (plant-receiver check --help for its options; the same as npx @plant-store/receiver-check)",
  )
  // Argument problems are collected and reported with the configuration's, below.
  .exitOverride()
  .configureOutput({ outputError: () => undefined });

/** Every problem with the arguments, environment and settings at once; exits 2 if there is any. */
function readConfig(): { config: ReceiverConfig; tracing: TracingSettings | undefined } {
  const { known, problems } = splitKnownArgs(process.argv.slice(2), [
    ...program.options,
    // Commander's own, not in `program.options`.
    { long: "--help", short: "-h" },
  ]);
  try {
    program.parse(known, { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // --help (and anything else commander finishes by itself with success).
    if (error.exitCode === 0) process.exit(0);
    problems.push(error.message.replace(/^error: /, ""));
  }
  let config: ReceiverConfig | undefined;
  try {
    config = loadConfig(program.opts<RawReceiverOptions>());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  const traced = resolveTracingSettings(program.opts().otelEndpoint, process.env, "plant-receiver");
  if (!traced.ok) problems.push(traced.problem);
  if (config === undefined || problems.length > 0 || !traced.ok) {
    console.error(
      `plant-receiver: ${new ConfigError(problems).message}\nRun with --help to see every option.`,
    );
    process.exit(2);
  }
  return { config, tracing: traced.settings };
}

async function main(): Promise<void> {
  const { config, tracing: tracingSettings } = readConfig();

  const logger = createLogger({ name: "plant-receiver", level: config.logLevel });
  // Registered before the first request, so every delivery's spans are recorded.
  const tracing = tracingSettings && (await startTracing(tracingSettings));
  // The origin only: a URL's user info would be a credential.
  if (tracingSettings)
    logger.info(
      { serviceName: tracingSettings.serviceName, collector: new URL(tracingSettings.tracesUrl).origin },
      "exporting traces",
    );
  const storage = await openStorage(config.db, {
    busyTimeoutMs: config.dbBusyTimeoutMs,
    onError: logPoolError(logger),
  });
  if (storage.kind === "memory") logger.warn({}, MEMORY_DB_WARNING);
  if (config.readTokens.length === 0) {
    logger.warn({}, "no --read-token: the read side (/, /plants, /events, /metrics) answers 403");
  }
  const events = createPlantEvents({
    maxStreams: config.maxEventStreams,
    maxStreamsPerClient: config.maxEventStreamsPerClient,
  });
  const app = createApp(config, {
    plantStore: storage.plantStore,
    dedupStore: storage.dedupStore,
    events,
    logger,
    ...(config.catchUpFrom !== undefined && config.catchUpToken !== undefined
      ? {
          catchUp: {
            url: config.catchUpFrom,
            token: config.catchUpToken,
            intervalMs: config.catchUpEveryMs,
            cursorStore: storage.cursorStore,
          },
        }
      : {}),
  });
  const server = createHttpServer(app, {
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    logger,
  });

  // Stop accepting, end the SSE streams (they would hold close() open forever), and let requests
  // in flight finish; keep-alive sockets are closed as soon as they are idle.
  const stop = async () => {
    const closed = new Promise<void>((resolve, reject) =>
      server.close((error) => (error ? reject(error) : resolve())),
    );
    events.close();
    // No new run; a run in flight finishes the event it is handling, before storage closes.
    const caughtUp = app.catchUp?.stop();
    server.closeIdleConnections();
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => {
      logger.warn({}, "requests still running after 10 s; closing their connections");
      server.closeAllConnections();
    }, 10_000);
    try {
      await closed;
    } finally {
      await caughtUp;
      clearInterval(idle);
      clearTimeout(deadline);
      await storage
        .close()
        .catch((closeError: unknown) => logger.error({ err: closeError }, "closing storage failed"));
      // Requests have ended: their spans go out before the process does.
      await tracing
        ?.shutdown()
        .catch((flushError: unknown) => logger.warn({ err: flushError }, "could not export the last spans"));
    }
  };
  stopOnSignals({ logger, stop });

  server.listen(Number(config.port), config.host, () => {
    const { port } = server.address() as AddressInfo;
    const host = config.host.includes(":") ? `[${config.host}]` : config.host;
    logger.info({ url: `http://${host}:${port}`, storage: storage.kind }, "listening");
    app.catchUp?.start();
  });
}

const [command, ...rest] = process.argv.slice(2);
if (command === "check") {
  // The conformance kit, as `npx @plant-store/receiver-check` runs it; it sends to the URL given only.
  // Loaded only here: a receiver that starts has no use for its table printer.
  const { runCheckCli } = await import("@plant-store/receiver-check");
  process.exitCode = await runCheckCli(rest, process, "plant-receiver check");
} else {
  main().catch((error: unknown) => {
    console.error(
      `plant-receiver: failed to start: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  });
}
