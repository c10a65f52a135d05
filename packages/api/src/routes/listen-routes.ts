import { buffer } from "node:stream/consumers";
import { MAX_BODY_BYTES } from "@plant-store/types";
import type { ParameterizedContext } from "koa";
import type { RouteTable } from "../access/route-table.js";
import { mountPointOf } from "../adapters/mount-prefix.js";
import { notFound, WebhookApiError } from "../errors.js";
import { type EndpointInputs, IdSchema } from "../inputs/api-inputs.js";
import {
  ListenAnswerInputSchema,
  ListenSessionIdSchema,
  openListenInputSchema,
} from "../inputs/listen-inputs.js";
import { parseInput } from "../inputs/parse-input.js";
import { readJsonBody } from "../inputs/read-json-body.js";
import type { ListenRelay } from "../listen/create-listen-relay.js";
import { presentEndpoint } from "../present.js";

export interface ListenRoutesOptions {
  relay: ListenRelay;
  /** The store's per-attempt limit, told to the CLI so it waits for its local receiver as long. */
  timeoutMs: number;
  /** How the event types a session asks for are checked (the API's catalog). */
  inputs: EndpointInputs;
  /**
   * Who the caller of a session's route is. Only the operator until subscribers may listen; a session is
   * answered and closed by its opener only.
   */
  principalOf?: (ctx: ParameterizedContext) => string;
  /** Told where the first session was opened from (the relay's origin, when none was given). */
  learnOrigin?: (origin: string) => void;
}

const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

/**
 * Where the worker reaches this API: the local address and port of the connection the session was opened
 * on (never the Host header, which the client writes), or for a fetch request the origin of its URL when
 * that is a loopback one; and the path the API is mounted under.
 */
function relayOriginOf(ctx: ParameterizedContext): string | undefined {
  const mount = mountPointOf(ctx.req);
  if (mount.origin !== undefined) {
    const url = new URL(mount.origin);
    return LOOPBACK_HOST.test(url.host.replace(/:\d+$/, "")) ? `${mount.origin}${mount.prefix}` : undefined;
  }
  const { localAddress, localPort } = ctx.req.socket;
  if (localAddress === undefined || localPort === undefined) return undefined;
  const address = localAddress.replace(/^::ffff:(?=\d+\.)/, "");
  const host = address.includes(":") ? `[${address}]` : address;
  const scheme = (ctx.req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  return `${scheme}://${host}:${localPort}${mount.prefix}`;
}

const gone = () => new WebhookApiError(410, "ERR_LISTEN_SESSION_GONE", "No such listen session");

/**
 * `plant-store listen`: `POST /listen` opens a session (a temporary endpoint whose URL is the relay
 * route below) and streams its deliveries to the CLI as NDJSON; the CLI posts each answer back. The
 * session ends, and its endpoint is removed, when the CLI disconnects or deletes it. The relay routes
 * are public to the admin API: they authenticate the worker by the session's endpoint token.
 */
export function listenRoutes(options: ListenRoutesOptions): RouteTable {
  const { relay } = options;
  const principalOf = options.principalOf ?? (() => "operator");
  const OpenListenInputSchema = openListenInputSchema(options.inputs.EventTypesSchema);

  const ownSession = (ctx: ParameterizedContext, id: unknown) => {
    const session = relay.get(parseInput(ListenSessionIdSchema, id, "session"));
    if (session === undefined || session.owner !== principalOf(ctx)) throw notFound("Listen session");
    return session;
  };

  return [
    {
      method: "POST",
      path: "/listen",
      access: "operator",
      handler: async (ctx) => {
        const input = parseInput(OpenListenInputSchema, await readJsonBody(ctx.req), "listen session");
        const origin = relayOriginOf(ctx);
        if (origin !== undefined) options.learnOrigin?.(origin);
        if (!relay.hasOrigin())
          throw new WebhookApiError(
            503,
            "ERR_NO_RELAY_ORIGIN",
            "listen needs the address the worker reaches this API on: give createWebhookApi a relayOrigin",
          );
        const session = await relay.open({
          owner: principalOf(ctx),
          token: input.token,
          secrets: input.secrets,
          eventTypes: input.eventTypes,
        });
        // Written by hand, not through Koa: the stream lasts until the CLI goes, and Koa would report
        // that ordinary end of the connection as an error ("Premature close").
        ctx.respond = false;
        const res = ctx.res;
        res.on("error", () => undefined);
        // However the connection ends (the CLI stopped, crashed or lost its network), the session goes.
        res.once("close", () => relay.release(session.id));
        ctx.req.socket.setTimeout(0);
        res.writeHead(200, {
          "content-type": "application/x-ndjson",
          // A buffering proxy would hold deliveries back until the answer ends, which is never.
          "cache-control": "no-store",
          "x-accel-buffering": "no",
        });
        res.write(
          `${JSON.stringify({
            type: "session",
            session: session.id,
            endpoint: presentEndpoint(session.endpoint),
            timeoutMs: options.timeoutMs,
            ...session.generated,
          })}\n`,
        );
        session.stream.pipe(res);
      },
    },
    {
      method: "DELETE",
      path: "/listen/:session",
      access: "operator",
      handler: async (ctx) => {
        const session = ownSession(ctx, ctx.params.session);
        await relay.close(session.id);
        ctx.status = 204;
      },
    },
    {
      method: "POST",
      path: "/listen/:session/answers/:request",
      access: "operator",
      handler: async (ctx) => {
        const session = ownSession(ctx, ctx.params.session);
        const requestId = parseInput(IdSchema, ctx.params.request, "request");
        const answer = parseInput(ListenAnswerInputSchema, await readJsonBody(ctx.req), "listen answer");
        if (!relay.answer(session.id, requestId, answer)) throw notFound("Delivery waiting for this answer");
        ctx.status = 204;
      },
    },
    // The worker's side: a delivery to a listen endpoint, answered with what the CLI's receiver said.
    {
      method: "POST",
      path: "/relay/:session",
      access: "public",
      handler: async (ctx) => {
        const length = Number(ctx.get("content-length") || Number.NaN);
        if (!(length <= MAX_BODY_BYTES))
          throw new WebhookApiError(413, "ERR_BODY_TOO_LARGE", `Body is larger than ${MAX_BODY_BYTES} bytes`);
        const body = await buffer(ctx.req);
        const abandoned = new AbortController();
        ctx.res.once("close", () => {
          if (!ctx.res.writableFinished) abandoned.abort();
        });
        const answered = relay.relay(
          String(ctx.params.session),
          ctx.get("authorization") || undefined,
          { headers: ctx.req.headers, body },
          abandoned.signal,
        );
        // 410 Gone: the store disables an endpoint that answers it, which is right for one left behind.
        if (answered === undefined) throw gone();
        const answer = await answered;
        ctx.status = answer.status;
        for (const name of ["content-type", "retry-after"]) {
          const value = answer.headers[name];
          if (value !== undefined) ctx.set(name, value);
        }
        ctx.body = answer.body;
      },
    },
    // Whether a session is live, for a store cleaning up after another one (`removeStale`).
    // The endpoint's token proves the asker stores this endpoint; without it the answer says nothing.
    {
      method: "GET",
      path: "/relay/:session",
      access: "public",
      handler: (ctx) => {
        if (!relay.authorized(String(ctx.params.session), ctx.get("authorization") || undefined))
          throw gone();
        ctx.status = 204;
      },
    },
  ];
}
