import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { EndpointTokenSchema, EndpointUrlSchema } from "@plant-store/api";
import { parseSettings } from "@plant-store/app-shell";
import { WebhookSecretSchema } from "@plant-store/types";
import { Command, Option } from "commander";
import { z } from "zod";
import { ListenError } from "../listen-error.js";
import { printLine } from "./cli-streams.js";
import { jsonOption } from "./db-option.js";

const SOURCES = {
  forwardTo: { flag: "--forward-to", env: "PLANT_STORE_FORWARD_TO" },
  store: { flag: "--store", env: "PLANT_STORE_URL" },
  adminToken: { flag: "--admin-token", env: "PLANT_STORE_ADMIN_TOKEN" },
  token: { flag: "--token", env: "PLANT_STORE_LISTEN_TOKEN" },
  secrets: { flag: "--secret", env: "PLANT_STORE_LISTEN_SECRETS" },
} as const;

const ListenConfigSchema = z.object({
  forwardTo: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }),
  store: EndpointUrlSchema,
  adminToken: z.string({ error: "is required" }).min(1, "is required"),
  token: EndpointTokenSchema.optional(),
  secrets: z
    .array(WebhookSecretSchema)
    .max(10)
    .optional()
    .transform((secrets) => (secrets === undefined || secrets.length === 0 ? undefined : secrets)),
});

/** The store's stream: the session first, then deliveries (and pings). */
const SessionLineSchema = z.object({
  type: z.literal("session"),
  session: z.string(),
  endpoint: z.object({ id: z.number(), url: z.string() }),
  timeoutMs: z.number(),
  token: z.string().optional(),
  secret: z.string().optional(),
});
const DeliveryLineSchema = z.object({
  type: z.literal("delivery"),
  request: z.number(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
});

/** What is sent back of the local receiver's answer: its status, the headers the store reads, its first bytes. */
const ANSWER_HEADERS = ["content-type", "retry-after"];
const MAX_ANSWER_CHARS = 16 * 1024;

const collect = (value: string, previous: string[] = []) => [...previous, value];
const clock = () => new Date().toISOString().slice(11, 19);

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === "string") return cause.code;
  const { name } = error as { name?: unknown };
  return name === "TimeoutError" ? "ETIMEDOUT" : "ERR_FORWARD";
}

/** The plant a New Plant body announces, for the log line; nothing when it is not one. */
function plantOf(body: Buffer): { id?: unknown; name?: unknown } {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as unknown;
    return parsed !== null && typeof parsed === "object" ? (parsed as { id?: unknown; name?: unknown }) : {};
  } catch {
    return {};
  }
}

interface ListenOptions {
  forwardTo?: string;
  store: string;
  adminToken?: string;
  token?: string;
  secret?: string[];
  json?: boolean;
}

export function listenCommand(): Command {
  return new Command("listen")
    .description(
      "Forward the deliveries of a temporary endpoint of a running store to a receiver on this machine, over a connection this command opens: the store never connects to you. Answers go into the store's attempt log; the endpoint is removed when this stops (Ctrl-C)",
    )
    .addOption(
      new Option(
        "--forward-to <url>",
        "your local receiver's webhook URL, e.g. http://127.0.0.1:3000/plant/webhook",
      ).env(SOURCES.forwardTo.env),
    )
    .addOption(
      new Option("--store <url>", "the running store's admin API")
        .env(SOURCES.store.env)
        .default("http://127.0.0.1:8780"),
    )
    .addOption(new Option("--admin-token <token>", "the store's admin token").env(SOURCES.adminToken.env))
    .addOption(
      new Option(
        "--token <token>",
        "the bearer token your receiver accepts (generated and printed when absent)",
      ).env(SOURCES.token.env),
    )
    .addOption(
      new Option(
        "--secret <whsec>",
        "a whsec_ secret your receiver verifies with; repeat for several (env: comma-separated; generated and printed when absent)",
      )
        .env(SOURCES.secrets.env)
        .argParser(collect),
    )
    .addOption(jsonOption())
    .action(async (opts: ListenOptions) => {
      const config = parseSettings(
        ListenConfigSchema,
        {
          forwardTo: opts.forwardTo,
          store: opts.store,
          adminToken: opts.adminToken,
          token: opts.token,
          secrets: opts.secret?.flatMap((value) => value.split(",")).map((value) => value.trim()),
        },
        (key) => SOURCES[key as keyof typeof SOURCES],
      );
      await listen(config, opts.json === true);
    });
}

type ListenConfig = z.output<typeof ListenConfigSchema>;

async function listen(config: ListenConfig, json: boolean): Promise<void> {
  const store = config.store.replace(/\/+$/, "");
  const admin = { authorization: `Bearer ${config.adminToken}` };
  const print = (event: Record<string, unknown>, text: string) =>
    printLine(json ? JSON.stringify(event) : text);
  const connection = new AbortController();
  const response = await fetch(`${store}/listen`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({
      ...(config.token === undefined ? {} : { token: config.token }),
      ...(config.secrets === undefined ? {} : { secrets: config.secrets }),
    }),
    signal: connection.signal,
  }).catch((error: unknown) => {
    throw new ListenError(`Could not reach the store at ${store} (${errorCode(error)})`);
  });
  if (response.status !== 200 || response.body === null) {
    const text = await response.text();
    const message = (() => {
      try {
        return (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        return text;
      }
    })();
    throw new ListenError(`The store refused to open a listen session: ${response.status} ${message}`);
  }
  const lines = createInterface({
    // The global fetch's stream type and node:stream/web's describe the same object.
    input: Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let session: z.output<typeof SessionLineSchema> | undefined;
  let stopping = false;

  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // Removed now rather than when the store notices the connection gone: the endpoint is gone once this exits.
    if (session !== undefined)
      await fetch(`${store}/listen/${session.session}`, {
        method: "DELETE",
        headers: admin,
        signal: AbortSignal.timeout(5000),
      }).catch(() => undefined);
    connection.abort();
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());

  const forward = async (delivery: z.output<typeof DeliveryLineSchema>, timeoutMs: number) => {
    const body = Buffer.from(delivery.body, "base64");
    const webhookId = delivery.headers["webhook-id"] ?? "";
    const plant = plantOf(body);
    const described = `plant ${String(plant.id ?? "?")} ${JSON.stringify(plant.name ?? "")}`;
    print(
      { event: "listen.delivery", request: delivery.request, webhookId, plant },
      `${clock()} → ${webhookId} ${described}`,
    );
    const started = performance.now();
    let answer: object;
    try {
      const local = await fetch(config.forwardTo, {
        method: "POST",
        headers: delivery.headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = (await local.text()).slice(0, MAX_ANSWER_CHARS);
      const headers: Record<string, string> = {};
      for (const name of ANSWER_HEADERS) {
        const value = local.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      const durationMs = Math.round(performance.now() - started);
      answer = { status: local.status, headers, body: text };
      print(
        {
          event: "listen.answer",
          request: delivery.request,
          webhookId,
          status: local.status,
          durationMs,
          body: text,
        },
        `${clock()} ← ${webhookId} ${local.status} in ${durationMs} ms ${text.replace(/\s+/g, " ").slice(0, 200)}`,
      );
    } catch (error) {
      const code = errorCode(error);
      const durationMs = Math.round(performance.now() - started);
      answer = { error: code };
      print(
        { event: "listen.answer", request: delivery.request, webhookId, error: code, durationMs },
        `${clock()} ← ${webhookId} no answer from ${config.forwardTo} (${code}) after ${durationMs} ms: the store records a 502`,
      );
    }
    if (session === undefined) return;
    await fetch(`${store}/listen/${session.session}/answers/${delivery.request}`, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify(answer),
    }).catch(() => undefined);
  };

  try {
    for await (const line of lines) {
      if (line.trim() === "") continue;
      const message = JSON.parse(line) as { type?: unknown };
      if (message.type === "session") {
        session = SessionLineSchema.parse(message);
        const { endpoint, token, secret } = session;
        const generated = [
          ...(token === undefined ? [] : [`    --token ${token}`]),
          ...(secret === undefined ? [] : [`    --secret ${secret}`]),
        ];
        print(
          {
            event: "listen.ready",
            session: session.session,
            endpointId: endpoint.id,
            endpointUrl: endpoint.url,
            forwardTo: config.forwardTo,
            ...(token === undefined ? {} : { token }),
            ...(secret === undefined ? {} : { secret }),
          },
          [
            `Listening: endpoint #${endpoint.id} of ${store} (temporary) forwards to ${config.forwardTo}`,
            ...(generated.length === 0
              ? []
              : ["  The store generated what your receiver must accept (shown once):", ...generated]),
            "  Ctrl-C stops listening and removes the endpoint.",
          ].join("\n"),
        );
      } else if (message.type === "delivery" && session !== undefined) {
        void forward(DeliveryLineSchema.parse(message), session.timeoutMs);
      }
    }
  } catch (error) {
    if (!stopping) throw new ListenError(`Lost the connection to the store (${errorCode(error)})`);
  }
  if (stopping) {
    print({ event: "listen.stopped" }, "Stopped; the temporary endpoint is removed.");
    return;
  }
  throw new ListenError("The store ended the listen session (it stopped or restarted)");
}
