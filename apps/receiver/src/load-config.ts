import { ConfigError, durationSetting, parseSettings } from "@plant-store/app-shell";
import { DELIVERY_TIMEOUT_MS, MIN_SECRET_BYTES, parseWebhookKey } from "@plant-store/types";
import { z } from "zod";

export { ConfigError };

/** Where each setting comes from, for messages that tell the user what to fix. */
export const CONFIG_SOURCES = {
  port: { flag: "--port", env: "PLANT_RECEIVER_PORT" },
  host: { flag: "--host", env: "PLANT_RECEIVER_HOST" },
  tokens: { flag: "--token", env: "PLANT_RECEIVER_TOKENS" },
  secrets: { flag: "--secret", env: "PLANT_RECEIVER_SECRETS" },
  readTokens: { flag: "--read-token", env: "PLANT_RECEIVER_READ_TOKENS" },
  db: { flag: "--db", env: "PLANT_RECEIVER_DB" },
  logLevel: { flag: "--log-level", env: "PLANT_RECEIVER_LOG_LEVEL" },
  headersTimeoutMs: { flag: "--headers-timeout", env: "PLANT_RECEIVER_HEADERS_TIMEOUT_MS" },
  bodyTimeoutMs: { flag: "--body-timeout", env: "PLANT_RECEIVER_BODY_TIMEOUT_MS" },
  requestTimeoutMs: { flag: "--request-timeout", env: "PLANT_RECEIVER_REQUEST_TIMEOUT_MS" },
  dbBusyTimeoutMs: { flag: "--db-busy-timeout", env: "PLANT_RECEIVER_DB_BUSY_TIMEOUT_MS" },
  maxEventStreams: { flag: "--max-event-streams", env: "PLANT_RECEIVER_MAX_EVENT_STREAMS" },
  maxEventStreamsPerClient: {
    flag: "--max-event-streams-per-client",
    env: "PLANT_RECEIVER_MAX_EVENT_STREAMS_PER_CLIENT",
  },
  catchUpFrom: { flag: "--catch-up-from", env: "PLANT_RECEIVER_CATCH_UP_FROM" },
  catchUpToken: { flag: "--catch-up-token", env: "PLANT_RECEIVER_CATCH_UP_TOKEN" },
  catchUpEveryMs: { flag: "--catch-up-every", env: "PLANT_RECEIVER_CATCH_UP_EVERY" },
} as const;

/** How often the catch-up asks the store's events API for what pushes missed, by default. */
export const DEFAULT_CATCH_UP_EVERY = "1m";

/** Caps on open `/events` streams; each holds a connection, so a file descriptor. */
export const DEFAULT_EVENT_STREAM_LIMITS = {
  maxEventStreams: "100",
  maxEventStreamsPerClient: "10",
} as const;

/** Where the receiver listens and stores by default (the demo's layout). */
export const DEFAULT_SERVER = {
  port: "8781",
  host: "127.0.0.1",
  db: "./data/receiver.db",
  logLevel: "info",
} as const;

/** Why `--db :memory:` is not for production; said at start-up and in `--help`. */
export const MEMORY_DB_WARNING =
  "--db :memory: forgets the webhook ids it has seen when the process stops: a request captured before a restart can be replayed, and is handled again, for the 5 minutes its timestamp stays valid";

/**
 * Defaults sized around the sender, which gives up on an answer after DELIVERY_TIMEOUT_MS: a body
 * still arriving after that is wasted, and nobody legitimate needs 10 s to send headers. In
 * milliseconds, as the flags have always taken them (a duration such as `15s` works too).
 */
export const DEFAULT_TIMEOUTS = {
  headersTimeoutMs: "10000",
  bodyTimeoutMs: String(DELIVERY_TIMEOUT_MS),
  requestTimeoutMs: String(2 * DELIVERY_TIMEOUT_MS),
  dbBusyTimeoutMs: "5000",
} as const;

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** What commander hands over: strings, lists for the repeatable flags. */
export interface RawReceiverOptions {
  port?: string | undefined;
  host?: string | undefined;
  token?: string[] | undefined;
  secret?: string[] | undefined;
  readToken?: string[] | undefined;
  db?: string | undefined;
  logLevel?: string | undefined;
  headersTimeout?: string | undefined;
  bodyTimeout?: string | undefined;
  requestTimeout?: string | undefined;
  dbBusyTimeout?: string | undefined;
  maxEventStreams?: string | undefined;
  maxEventStreamsPerClient?: string | undefined;
  catchUpFrom?: string | undefined;
  catchUpToken?: string | undefined;
  catchUpEvery?: string | undefined;
}

const milliseconds = durationSetting({ min: 1, max: 3_600_000 });

// Env vars carry lists comma-separated; flags may also repeat. Both end up here as one list.
const list = z
  .array(z.string())
  .default([])
  .transform((values) =>
    values
      .flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter((v) => v !== ""),
  );

const TOKEN = z.string().regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces");

const streamCount = z.coerce
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(100_000, "must be at most 100000");

const ConfigSchema = z
  .object({
    port: z.coerce
      .number({ error: "must be a number" })
      .int("must be a whole number")
      .min(0, "must be 0 to 65535")
      .max(65535, "must be 0 to 65535"),
    host: z.string().trim().min(1, "must not be empty"),
    tokens: list.pipe(z.array(TOKEN).min(1, "at least one bearer token is required")),
    // Optional: without one the read side (/, /plants, /events, /metrics) is off. At least 16
    // characters, like the store's admin token: a short one is guessed whatever slows the guessing.
    readTokens: list.pipe(z.array(TOKEN.min(16, "must be at least 16 characters"))),
    secrets: list.pipe(
      z
        .array(
          // A receiver verifies: a whsec_ secret (v1) or a whpk_ public key (v1a), never a whsk_ signing key.
          z.string().refine((s) => {
            try {
              return parseWebhookKey(s).type !== "signing";
            } catch {
              return false;
            }
          }, `must be whsec_ followed by base64 of at least ${MIN_SECRET_BYTES} bytes, or a whpk_ ed25519 public key`),
        )
        .min(1, "at least one signing secret is required"),
    ),
    db: z.string().trim().min(1, "must not be empty"),
    logLevel: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }),
    headersTimeoutMs: milliseconds,
    bodyTimeoutMs: milliseconds,
    requestTimeoutMs: milliseconds,
    dbBusyTimeoutMs: milliseconds,
    maxEventStreams: streamCount,
    maxEventStreamsPerClient: streamCount,
    // The endpoint's events URL on the store (GET /endpoints/{id}/events): off without one.
    catchUpFrom: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL: the endpoint's events URL on the store" })
      .optional(),
    catchUpToken: TOKEN.optional(),
    catchUpEveryMs: durationSetting({ min: 100, max: 86_400_000 }),
  })
  .refine((c) => (c.catchUpFrom === undefined) === (c.catchUpToken === undefined), {
    path: ["catchUpToken"],
    message: "--catch-up-from and --catch-up-token go together: the events URL and the credential it takes",
    when: ({ value }) => typeof value === "object" && value !== null,
  })
  // Node refuses a headers timeout longer than the whole-request timeout.
  .refine((c) => c.headersTimeoutMs <= c.requestTimeoutMs, {
    path: ["headersTimeoutMs"],
    message: "must not be longer than --request-timeout",
    // Also checked when other settings are invalid, so every problem is reported at once.
    when: ({ value }) => {
      const v = value as { headersTimeoutMs?: unknown; requestTimeoutMs?: unknown };
      return Number.isInteger(v.headersTimeoutMs) && Number.isInteger(v.requestTimeoutMs);
    },
  });

export type ReceiverConfig = z.output<typeof ConfigSchema>;

/** Validates the whole configuration once, at start-up. Throws `ConfigError` listing every problem. */
export function loadConfig(raw: RawReceiverOptions): ReceiverConfig {
  return parseSettings(
    ConfigSchema,
    {
      port: raw.port ?? DEFAULT_SERVER.port,
      host: raw.host ?? DEFAULT_SERVER.host,
      tokens: raw.token,
      secrets: raw.secret,
      readTokens: raw.readToken,
      db: raw.db ?? DEFAULT_SERVER.db,
      logLevel: raw.logLevel ?? DEFAULT_SERVER.logLevel,
      headersTimeoutMs: raw.headersTimeout ?? DEFAULT_TIMEOUTS.headersTimeoutMs,
      bodyTimeoutMs: raw.bodyTimeout ?? DEFAULT_TIMEOUTS.bodyTimeoutMs,
      requestTimeoutMs: raw.requestTimeout ?? DEFAULT_TIMEOUTS.requestTimeoutMs,
      dbBusyTimeoutMs: raw.dbBusyTimeout ?? DEFAULT_TIMEOUTS.dbBusyTimeoutMs,
      maxEventStreams: raw.maxEventStreams ?? DEFAULT_EVENT_STREAM_LIMITS.maxEventStreams,
      maxEventStreamsPerClient:
        raw.maxEventStreamsPerClient ?? DEFAULT_EVENT_STREAM_LIMITS.maxEventStreamsPerClient,
      catchUpFrom: raw.catchUpFrom,
      catchUpToken: raw.catchUpToken,
      catchUpEveryMs: raw.catchUpEvery ?? DEFAULT_CATCH_UP_EVERY,
    },
    (key) => CONFIG_SOURCES[key as keyof typeof CONFIG_SOURCES],
  );
}
