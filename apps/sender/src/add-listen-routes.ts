import { buffer } from "node:stream/consumers";
import type Router from "@koa/router";
import { MAX_BODY_BYTES } from "@plant-store/types";
import type { ParameterizedContext } from "koa";
import type { z } from "zod";
import { AdminError, invalidInput, notFound } from "./admin-error.js";
import { IdSchema } from "./admin-inputs.js";
import type { ListenRelay } from "./create-listen-relay.js";
import { formatZodError } from "./format-zod-error.js";
import { ListenAnswerInputSchema, ListenSessionIdSchema, OpenListenInputSchema } from "./listen-inputs.js";
import { presentEndpoint } from "./present.js";
import { readJsonBody } from "./read-json-body.js";

export interface ListenRoutesOptions {
  /** The public router: the relay routes authenticate the worker by the session's endpoint token. */
  router: Router;
  /** The admin router (admin token checked before any of its routes). */
  admin: Router;
  relay: ListenRelay;
  /** The store's per-attempt limit, told to the CLI so it waits for its local receiver as long. */
  timeoutMs: number;
  /**
   * Who the caller of an admin route is. Only the operator until subscribers exist (issue 25); a
   * subscriber's router would pass its own, and a session is answered and closed by its opener only.
   */
  principalOf?: (ctx: ParameterizedContext) => string;
}

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(formatZodError(`Invalid ${what}`, result.error));
  return result.data;
}

const gone = () => new AdminError(410, "ERR_LISTEN_SESSION_GONE", "No such listen session");

/**
 * `plant-store listen`: `POST /listen` opens a session (a temporary endpoint whose URL is the relay
 * route below) and streams its deliveries to the CLI as NDJSON; the CLI posts each answer back. The
 * session ends, and its endpoint is removed, when the CLI disconnects or deletes it.
 */
export function addListenRoutes(options: ListenRoutesOptions): void {
  const { router, admin, relay } = options;
  const principalOf = options.principalOf ?? (() => "operator");

  const ownSession = (ctx: ParameterizedContext, id: unknown) => {
    const session = relay.get(parse(ListenSessionIdSchema, id, "session"));
    if (session === undefined || session.owner !== principalOf(ctx)) throw notFound("Listen session");
    return session;
  };

  admin.post("/listen", async (ctx) => {
    const input = parse(OpenListenInputSchema, await readJsonBody(ctx.req), "listen session");
    const session = await relay.open({ owner: principalOf(ctx), token: input.token, secrets: input.secrets });
    // Written by hand, not through Koa: the stream lasts until the CLI goes, and Koa would report that
    // ordinary end of the connection as an error ("Premature close").
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
  });

  admin.delete("/listen/:session", async (ctx) => {
    const session = ownSession(ctx, ctx.params.session);
    await relay.close(session.id);
    ctx.status = 204;
  });

  admin.post("/listen/:session/answers/:request", async (ctx) => {
    const session = ownSession(ctx, ctx.params.session);
    const requestId = parse(IdSchema, ctx.params.request, "request");
    const answer = parse(ListenAnswerInputSchema, await readJsonBody(ctx.req), "listen answer");
    if (!relay.answer(session.id, requestId, answer)) throw notFound("Delivery waiting for this answer");
    ctx.status = 204;
  });

  // The worker's side: a delivery to a listen endpoint, answered with what the CLI's receiver said.
  router.post("/relay/:session", async (ctx) => {
    const length = Number(ctx.get("content-length") || Number.NaN);
    if (!(length <= MAX_BODY_BYTES))
      throw new AdminError(413, "ERR_BODY_TOO_LARGE", `Body is larger than ${MAX_BODY_BYTES} bytes`);
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
  });

  // Whether a session is live, for a store cleaning up after another one (`removeStale`).
  // The endpoint's token proves the asker stores this endpoint; without it the answer says nothing.
  router.get("/relay/:session", (ctx) => {
    if (!relay.authorized(String(ctx.params.session), ctx.get("authorization") || undefined)) throw gone();
    ctx.status = 204;
  });
}
