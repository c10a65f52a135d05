import { EndpointTokenSchema, EndpointUrlSchema } from "@plant-store/api";
import { parseSettings } from "@plant-store/app-shell";
import { type ListenEvent, listen as listenToApi } from "@plant-store/cli/listen";
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

const collect = (value: string, previous: string[] = []) => [...previous, value];
const clock = () => new Date().toISOString().slice(11, 19);

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

/**
 * `@plant-store/cli`'s `listen` (the one copy of the CLI side of the relay protocol) against the store's
 * admin API, printed as this command always has: each delivery as it arrives, with its plant, then its
 * answer.
 */
async function listen(config: ListenConfig, json: boolean): Promise<void> {
  const store = config.store.replace(/\/+$/, "");
  const print = (event: Record<string, unknown>, text: string) =>
    printLine(json ? JSON.stringify(event) : text);
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await listenToApi({
      api: store,
      token: config.adminToken,
      forwardTo: config.forwardTo,
      receiverToken: config.token,
      receiverSecrets: config.secrets,
      signal: stopping.signal,
      serviceName: "the store",
      onEvent: (event) => printEvent(event, store, config.forwardTo, print),
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_LISTEN") throw new ListenError((error as Error).message);
    throw error;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

function printEvent(
  event: ListenEvent,
  store: string,
  forwardTo: string,
  print: (event: Record<string, unknown>, text: string) => void,
): void {
  switch (event.type) {
    case "ready": {
      const { token, secret } = event;
      const generated = [
        ...(token === undefined ? [] : [`    --token ${token}`]),
        ...(secret === undefined ? [] : [`    --secret ${secret}`]),
      ];
      print(
        {
          event: "listen.ready",
          session: event.session,
          endpointId: event.endpointId,
          endpointUrl: event.endpointUrl,
          forwardTo,
          ...(token === undefined ? {} : { token }),
          ...(secret === undefined ? {} : { secret }),
        },
        [
          `Listening: endpoint #${event.endpointId} of ${store} (temporary) forwards to ${forwardTo}`,
          ...(generated.length === 0
            ? []
            : ["  The store generated what your receiver must accept (shown once):", ...generated]),
          "  Ctrl-C stops listening and removes the endpoint.",
        ].join("\n"),
      );
      return;
    }
    case "delivery": {
      const plant = plantOf(event.body);
      const described = `plant ${String(plant.id ?? "?")} ${JSON.stringify(plant.name ?? "")}`;
      print(
        { event: "listen.delivery", request: event.request, webhookId: event.webhookId, plant },
        `${clock()} → ${event.webhookId} ${described}`,
      );
      return;
    }
    case "answer": {
      const { request, webhookId, durationMs } = event;
      if (event.status === null)
        print(
          { event: "listen.answer", request, webhookId, error: event.error, durationMs },
          `${clock()} ← ${webhookId} no answer from ${forwardTo} (${event.error}) after ${durationMs} ms: the store records a 502`,
        );
      else
        print(
          { event: "listen.answer", request, webhookId, status: event.status, durationMs, body: event.body },
          `${clock()} ← ${webhookId} ${event.status} in ${durationMs} ms ${event.body.replace(/\s+/g, " ").slice(0, 200)}`,
        );
      return;
    }
    case "stopped":
      print({ event: "listen.stopped" }, "Stopped; the temporary endpoint is removed.");
  }
}
