import { type Command, Option } from "commander";
import { type ApiClient, createApiClient } from "../api/create-api-client.js";
import { SettingsError } from "../errors.js";

export interface ApiFlags {
  api?: string;
  token?: string;
  json?: boolean;
}

const API = { flag: "--api", env: "PLANT_WEBHOOKS_API" } as const;
const TOKEN = { flag: "--token", env: "PLANT_WEBHOOKS_TOKEN" } as const;

/** `--api`, `--token` and `--json`, on every command that calls the API. */
export function withApiOptions(
  command: Command,
  json = "print the API's answer as JSON, as it came",
): Command {
  return command
    .addOption(
      new Option(
        `${API.flag} <url>`,
        "the webhook API's URL, with the path it is mounted at (http://127.0.0.1:3000/webhooks)",
      ).env(API.env),
    )
    .addOption(
      new Option(`${TOKEN.flag} <token>`, "the API's credential: an operator's or a subscriber's token").env(
        TOKEN.env,
      ),
    )
    .option("--json", json);
}

/** Why a value cannot be the API's URL; undefined when it can. */
function apiProblem(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return "is required";
  if (!URL.canParse(value)) return "must be an http:// or https:// URL";
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http:// or https:// URL";
  if (url.username !== "" || url.password !== "")
    return "must not contain credentials (user:password@): give the token as --token";
  if (url.search !== "" || url.hash !== "") return "must not have a query or a fragment";
  return undefined;
}

/** A bearer token a header can carry (visible ASCII), or why not. */
export function tokenProblem(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return "is required";
  if (!/^[\x21-\x7e]+$/.test(value))
    return "must be visible ASCII (no spaces, control or non-ASCII characters)";
  return undefined;
}

/** Every problem of a command's settings at once, each naming its flag and variable, never a value. */
export function refuseSettings(problems: ReadonlyArray<string | undefined>): void {
  const found = problems.filter((problem) => problem !== undefined);
  if (found.length > 0)
    throw new SettingsError(`Invalid settings:\n${found.map((p) => `  ${p}`).join("\n")}`);
}

/** `--api`/`--token` checked (with whatever else the command found wrong), then the client. */
export function apiSettings(
  flags: ApiFlags,
  otherProblems: ReadonlyArray<string | undefined> = [],
): { api: string; token: string; client: ApiClient } {
  const api = apiProblem(flags.api);
  const token = tokenProblem(flags.token);
  refuseSettings([
    api && `${API.flag} (${API.env}): ${api}`,
    token && `${TOKEN.flag} (${TOKEN.env}): ${token}`,
    ...otherProblems,
  ]);
  const settings = { api: flags.api as string, token: flags.token as string };
  return { ...settings, client: createApiClient(settings) };
}

/** An id given as an argument or a flag: decimal digits, as the API's paths take them. */
export function idProblem(value: string | undefined, what: string): string | undefined {
  return value === undefined || /^0*[1-9][0-9]{0,15}$/.test(value)
    ? undefined
    : `${what}: must be decimal digits, 1 or more`;
}

/** Repeated flags (`--event-type a --event-type b`, or `a,b`) collected into one list. */
export function collectList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(",").map((item) => item.trim())];
}
