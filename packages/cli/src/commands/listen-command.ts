import { Command, Option } from "commander";
import { type ListenEvent, listen } from "../listen/listen.js";
import { type ApiFlags, apiSettings, collectList, tokenProblem, withApiOptions } from "./api-settings.js";
import { type CommandContext, stopSignal } from "./command-context.js";

interface ListenFlags extends ApiFlags {
  forwardTo?: string;
  eventType?: string[];
  receiverToken?: string;
  receiverSecret?: string[];
}

const clock = (date: Date) => date.toISOString().slice(11, 19);

function forwardToProblem(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return "is required";
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    return "must be an http:// or https:// URL";
  return undefined;
}

/** What `listen` prints of an event: a line a person reads, or one JSON line per delivery (`--json`). */
function describeEvent(api: string, json: boolean, event: ListenEvent): string | undefined {
  const line = (text: string) => text;
  const now = new Date();
  switch (event.type) {
    case "ready": {
      const { type: _type, ...ready } = event;
      if (json) return line(JSON.stringify({ event: "listen.ready", ...ready }));
      const generated = [
        ...(event.token === undefined ? [] : [`    --receiver-token ${event.token}`]),
        ...(event.secret === undefined ? [] : [`    --receiver-secret ${event.secret}`]),
      ];
      return line(
        [
          `Listening: temporary endpoint #${event.endpointId} of ${api} forwards ${event.eventTypes === null ? "every event type" : event.eventTypes.join(", ")} to ${event.forwardTo}`,
          ...(generated.length === 0
            ? []
            : ["  The API generated what your receiver must accept (shown once):", ...generated]),
          "  Ctrl-C stops listening and removes the endpoint.",
        ].join("\n"),
      );
    }
    case "delivery":
      // Printed with its answer: one line per delivery.
      return undefined;
    case "answer": {
      if (json)
        return line(
          JSON.stringify({
            event: "listen.delivery",
            time: now.toISOString(),
            webhookId: event.webhookId,
            eventType: event.eventType,
            status: event.status,
            error: event.error,
            durationMs: event.durationMs,
            request: event.request,
          }),
        );
      const outcome =
        event.status === null
          ? `no answer (${event.error}) after ${event.durationMs} ms: the sender records a 502`
          : `${event.status} in ${event.durationMs} ms`;
      return line(`${clock(now)} ${event.eventType ?? "(no event type)"} ${event.webhookId} → ${outcome}`);
    }
    case "stopped":
      return line(
        json ? JSON.stringify({ event: "listen.stopped" }) : "Stopped; the temporary endpoint is removed.",
      );
  }
}

/** `plant-webhooks listen`: forward a temporary endpoint's deliveries to a receiver on this machine. */
export function listenCommand(context: CommandContext): Command {
  return withApiOptions(
    new Command("listen")
      .description(
        "forward the deliveries of a temporary endpoint of any service mounting the webhook API to a receiver on this machine, over a connection this command opens (the service never connects to you); the answers go into the attempt log, and the endpoint is removed when this stops (Ctrl-C). Needs an operator's token",
      )
      .addOption(
        new Option(
          "--forward-to <url>",
          "your local receiver's webhook URL (http://127.0.0.1:3000/webhook)",
        ).env("PLANT_WEBHOOKS_FORWARD_TO"),
      )
      .option(
        "--event-type <type>",
        "only this event type (a trailing * matches a prefix); repeat for several. Default: every one",
        collectList,
      )
      .addOption(
        new Option(
          "--receiver-token <token>",
          "the bearer token your receiver accepts (generated and printed when absent)",
        ).env("PLANT_WEBHOOKS_RECEIVER_TOKEN"),
      )
      .addOption(
        new Option(
          "--receiver-secret <whsec>",
          "a secret your receiver verifies with; repeat for several (env: comma-separated; generated and printed when absent)",
        )
          .env("PLANT_WEBHOOKS_RECEIVER_SECRETS")
          .argParser(collectList),
      ),
    "print one JSON line per delivery (webhookId, eventType, the local answer's status)",
  ).action(async (flags: ListenFlags) => {
    const forwardTo = forwardToProblem(flags.forwardTo);
    const receiverToken = flags.receiverToken === undefined ? undefined : tokenProblem(flags.receiverToken);
    const { api, token } = apiSettings(flags, [
      forwardTo && `--forward-to (PLANT_WEBHOOKS_FORWARD_TO): ${forwardTo}`,
      receiverToken && `--receiver-token (PLANT_WEBHOOKS_RECEIVER_TOKEN): ${receiverToken}`,
    ]);
    await listen({
      api,
      token,
      forwardTo: flags.forwardTo as string,
      receiverToken: flags.receiverToken,
      receiverSecrets: flags.receiverSecret,
      eventTypes: flags.eventType,
      signal: stopSignal(context),
      onEvent: (event) => {
        const text = describeEvent(api, flags.json === true, event);
        if (text !== undefined) context.streams.out(`${text}\n`);
      },
    });
  });
}
