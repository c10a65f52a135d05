import { MAX_ENDPOINTS, SUBSCRIBER_ENDPOINT_CAPS } from "@plant-store/api";
import { durationSetting } from "@plant-store/app-shell";
import { createRetrySchedule } from "@plant-store/sender";
import { DELIVERY_TIMEOUT_MS } from "@plant-store/types";
import { z } from "zod";
import { BooleanSetting } from "./boolean-setting.js";

const duration = durationSetting();

const positiveInt = z.coerce.number().int().min(1).max(1000);

/**
 * `--final-statuses 400,413,422`: answers that end a delivery at once, failed, instead of being retried.
 * Empty or absent (the default): none, as Standard Webhooks says (every answer but a 2xx is retried).
 */
const FinalStatusesSetting = z
  .string()
  .optional()
  .transform((text) => (text?.trim() ? text.split(",").map((status) => status.trim()) : []))
  .pipe(
    z.array(
      z.coerce
        .number<string>({ error: "must be an HTTP status, 100 to 599" })
        .int()
        .min(100)
        .max(599)
        .refine((status) => status < 200 || status > 299, "must not be a 2xx: a 2xx delivers"),
    ),
  );

/**
 * The admin port's defences. The timeouts are the receiver's: 10 s for a request head, twice the
 * contract's 15 s for a whole request. 64 connections per client leave room for a browser (6 per host),
 * scripts and the ingest benchmark's 50, while a client holding more would starve the process of the
 * file descriptors its deliveries need (400 idle sockets under a 200-descriptor limit made every
 * attempt fail with EMFILE).
 */
export const ADMIN_SERVER_DEFAULTS = {
  headersTimeout: "10s",
  requestTimeout: `${(2 * DELIVERY_TIMEOUT_MS) / 1000}s`,
  maxConnectionsPerClient: "64",
} as const;

/** Everything `serve` needs, validated at once. */
export const ServeConfigSchema = z
  .object({
    db: z.string().min(1),
    encryptionKeyFile: z.string().optional(),
    port: z.coerce.number().int().min(0).max(65_535),
    host: z.string().min(1),
    adminToken: z
      .string({ error: "is required (the admin API is never open)" })
      .min(16, "must be at least 16 characters"),
    // The operator's own endpoints only; subscribers' need their own, explicit setting (issue 37).
    allowPrivateTargets: BooleanSetting,
    allowPrivateTargetsForSubscribers: BooleanSetting,
    // A subscriber's endpoints at most (issue 37): far below the operator's 1,000 unless raised.
    maxSubscriberEndpoints: z
      .string()
      .regex(/^[0-9]+$/, "must be a whole number")
      .default(String(SUBSCRIBER_ENDPOINT_CAPS.endpoints))
      .transform(Number)
      .pipe(z.number().int().min(1).max(MAX_ENDPOINTS)),
    retrySchedule: z.string().transform((text, ctx) => {
      try {
        return createRetrySchedule(text);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
    concurrency: positiveInt,
    perEndpointConcurrency: positiveInt,
    lease: duration,
    // The contract promises receivers the store waits at most DELIVERY_TIMEOUT_MS for an answer.
    timeout: durationSetting({ min: 1, max: DELIVERY_TIMEOUT_MS, maxReason: "the contract's limit" }),
    disableAfter: duration,
    // Absent: a minute, or half of --disable-after when that is shorter (the library's default).
    alertAfter: duration.optional(),
    finalStatuses: FinalStatusesSetting,
    pollInterval: duration,
    retention: durationSetting({ min: 1000 }),
    // The admin port's defences, the receiver's values: a client trickling its request is cut off.
    headersTimeout: durationSetting({ min: 1, max: 3_600_000 }),
    requestTimeout: durationSetting({ min: 1, max: 3_600_000 }),
    maxConnectionsPerClient: z.coerce.number().int().min(1).max(100_000),
  })
  // Node refuses a headers timeout longer than the whole-request timeout.
  .refine((config) => config.headersTimeout <= config.requestTimeout, {
    message: "must not be longer than --request-timeout",
    path: ["headersTimeout"],
  })
  .refine((config) => config.lease > 2 * config.timeout, {
    // A claim must outlast a wait for a free slot plus the attempt, or a second worker could take it mid-attempt.
    message: "must be more than twice --timeout",
    path: ["lease"],
  });

export type ServeConfig = z.infer<typeof ServeConfigSchema>;
