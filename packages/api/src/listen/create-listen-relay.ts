import { randomBytes, timingSafeEqual } from "node:crypto";
import { PassThrough } from "node:stream";
import type { Endpoint, Outbox } from "@plant-store/sender";
import { generateWebhookSecret } from "@plant-store/types";

/** A listen endpoint's URL path: the relay route and a session id, nothing else. */
const RELAY_PATH = /^((?:\/[^/]+)*)\/relay\/(lst_[0-9a-f]{32})$/;

/**
 * Whether `url` is shaped like a relay URL (`/relay/lst_…`) on any host, spelt any way (percent-encoded,
 * another case, a query): what only `listen` may make. An endpoint of anyone else's there would reach
 * the store's own relay route, so `POST`/`PATCH /endpoints` refuse it before asking any guard.
 */
export function isRelayShaped(url: string): boolean {
  if (!URL.canParse(url)) return false;
  let path = new URL(url).pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not decodable: judged as it is.
  }
  return /(^|\/)relay\/+lst_/i.test(path);
}

/** Headers of a delivery that belong to its connection, not to the delivery. */
const HOP_BY_HOP = new Set(["connection", "content-length", "host", "keep-alive", "transfer-encoding"]);

/** What a listening CLI answers for one delivery: its local receiver's answer, or why there was none. */
export type ListenAnswer =
  | { status: number; headers: Record<string, string>; body: string }
  | { error: string; message?: string | undefined };

/** What the relay route answers the worker. */
export interface RelayAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ListenSession {
  id: string;
  /** Who opened it; only they may answer for it or close it (the operator until subscribers exist). */
  owner: string;
  endpoint: Endpoint;
  /** The token and secret the store generated because the CLI gave none, shown once to the CLI. */
  generated: { token?: string; secret?: string };
  /** NDJSON lines for the CLI: the session first, then each delivery, and a ping when idle. */
  stream: PassThrough;
}

export interface OpenListenInput {
  owner: string;
  token?: string | undefined;
  secrets?: readonly string[] | undefined;
  /** What the temporary endpoint receives (absent or null: every event type), set as it is added. */
  eventTypes?: readonly string[] | null | undefined;
}

export interface ListenRelay {
  /** The origin of the store's own admin server, once it listens: relay URLs are made on it. */
  setOrigin(origin: string): void;
  /** Whether `setOrigin` was called: sessions can be opened. */
  hasOrigin(): boolean;
  /**
   * Whether the worker may deliver to `url` for endpoint `endpointId` whatever its address: the one
   * exception to the SSRF guard, granted to an open session's own endpoint (by id, when the session
   * opened) at the URL the session made for it, never to a URL alone, which anyone could give.
   */
  grants(endpointId: number, url: URL): boolean;
  /** Adds the temporary endpoint and the stream its deliveries go out on. */
  open(input: OpenListenInput): Promise<ListenSession>;
  get(sessionId: string): ListenSession | undefined;
  /** Whether the session is open and `authorization` is `Bearer <its endpoint's token>` (constant time). */
  authorized(sessionId: string, authorization: string | undefined): boolean;
  /** Removes the session's endpoint (its deliveries and attempts with it) and ends its stream. */
  close(sessionId: string): Promise<boolean>;
  /** `close` for when nobody waits for the outcome (the CLI's connection closed): a failure is logged. */
  release(sessionId: string): void;
  /**
   * One delivery from the worker, handed to the CLI; resolves with the CLI's answer or, after the
   * store's per-attempt time, a 504. `undefined`: no such session or not its token (the caller answers 410).
   */
  relay(
    sessionId: string,
    authorization: string | undefined,
    delivery: { headers: Record<string, string | string[] | undefined>; body: Buffer },
    signal: AbortSignal,
  ): Promise<RelayAnswer> | undefined;
  /** The CLI's answer to one relayed delivery; false when nothing waits for it (any more). */
  answer(sessionId: string, requestId: number, answer: ListenAnswer): boolean;
  /** Every session closed (the store is stopping). */
  closeAll(): Promise<void>;
  /**
   * Removes listen endpoints no live session stands behind: a store that died could not remove its
   * own. Ones on this store's origin cannot be live (sessions live in memory); on another loopback
   * origin (another store process on this host) they are asked, and kept if it answers for them.
   */
  removeStale(): Promise<number>;
}

export interface ListenRelayOptions {
  outbox: Outbox;
  /** The store's per-attempt limit: the longest a relayed delivery waits for the CLI's answer. */
  timeoutMs: number;
  logger?: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  /** A line on an idle stream this often, so proxies and the CLI see the connection alive; default 15 s. */
  pingIntervalMs?: number;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (\S+)$/.exec(header ?? "")?.[1] ?? "");
  const expected = Buffer.from(token);
  // Lengths differ: no comparison needed to refuse, and the token's length is not the secret.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function errorAnswer(status: number, message: string): RelayAnswer {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify({ error: status, message }),
  };
}

interface Pending {
  resolve(answer: RelayAnswer): void;
}

interface Live extends ListenSession {
  token: string;
  nextRequest: number;
  pending: Map<number, Pending>;
  ping: NodeJS.Timeout;
  closed: boolean;
}

/**
 * `plant-store listen`'s store side. Each session is a real endpoint of the outbox whose URL is this
 * store's own relay route (`<admin origin>/relay/<session id>`): the worker signs, delivers, retries
 * and records attempts to it as to any endpoint, and the relay route hands each request to the CLI
 * over the stream the CLI opened, waits for the CLI's answer (its local receiver's) and answers the
 * worker with it. The store never connects to the developer's machine; the attempt log holds the
 * local receiver's real status and body.
 */
export function createListenRelay(options: ListenRelayOptions): ListenRelay {
  const { outbox, timeoutMs, logger } = options;
  const pingIntervalMs = options.pingIntervalMs ?? 15_000;
  const sessions = new Map<string, Live>();
  /** The endpoint id of each open session → the session: what `grants` lets through. */
  const granted = new Map<number, string>();
  let origin: string | undefined;

  const write = (session: Live, line: object) => {
    if (!session.closed) session.stream.write(`${JSON.stringify(line)}\n`);
  };

  const close = async (sessionId: string): Promise<boolean> => {
    const session = sessions.get(sessionId);
    if (session === undefined || session.closed) return false;
    session.closed = true;
    granted.delete(session.endpoint.id);
    clearInterval(session.ping);
    for (const pending of session.pending.values())
      pending.resolve(errorAnswer(503, "The listening CLI disconnected before answering"));
    session.pending.clear();
    try {
      await outbox.removeEndpoint(session.endpoint.id);
    } finally {
      sessions.delete(sessionId);
      session.stream.end();
      logger?.info({ session: sessionId, endpointId: session.endpoint.id }, "listen session closed");
    }
    return true;
  };

  return {
    hasOrigin: () => origin !== undefined,
    setOrigin(value) {
      origin = value;
    },
    grants(endpointId, url) {
      const sessionId = granted.get(endpointId);
      const session = sessionId === undefined ? undefined : sessions.get(sessionId);
      return session !== undefined && !session.closed && url.href === session.endpoint.url;
    },
    async open(input) {
      if (origin === undefined) throw new Error("The listen relay has no origin yet");
      const id = `lst_${randomBytes(16).toString("hex")}`;
      const generated: ListenSession["generated"] = {};
      if (input.token === undefined) generated.token = `lst_token_${randomBytes(24).toString("base64url")}`;
      if (input.secrets === undefined) generated.secret = generateWebhookSecret();
      const token = input.token ?? (generated.token as string);
      const endpoint = await outbox.addEndpoint({
        url: `${origin}/relay/${id}`,
        token,
        secrets: [...(input.secrets ?? [generated.secret as string])],
        ...(input.eventTypes ? { eventTypes: [...input.eventTypes] } : {}),
      });
      const session: Live = {
        id,
        owner: input.owner,
        endpoint,
        generated,
        stream: new PassThrough(),
        token,
        nextRequest: 1,
        pending: new Map(),
        closed: false,
        ping: setInterval(() => write(session, { type: "ping" }), pingIntervalMs),
      };
      session.ping.unref();
      sessions.set(id, session);
      granted.set(endpoint.id, id);
      logger?.info({ session: id, endpointId: endpoint.id, owner: input.owner }, "listen session opened");
      return session;
    },
    get: (sessionId) => sessions.get(sessionId),
    release(sessionId) {
      // The endpoint stays if it could not be removed now; the next start removes it (removeStale).
      close(sessionId).catch((error: unknown) =>
        logger?.warn({ err: error, session: sessionId }, "could not remove a listen session's endpoint"),
      );
    },
    authorized(sessionId, authorization) {
      const session = sessions.get(sessionId);
      return session !== undefined && !session.closed && bearerMatches(authorization, session.token);
    },
    close,
    relay(sessionId, authorization, delivery, signal) {
      const session = sessions.get(sessionId);
      if (session === undefined || session.closed || !bearerMatches(authorization, session.token)) return;
      const requestId = session.nextRequest++;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(delivery.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name))
          headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      return new Promise<RelayAnswer>((resolve) => {
        const settle = (answer: RelayAnswer) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", abandon);
          session.pending.delete(requestId);
          resolve(answer);
        };
        const timer = setTimeout(
          () => settle(errorAnswer(504, `The listening CLI did not answer within ${timeoutMs} ms`)),
          timeoutMs,
        );
        // The worker gave up (its own timeout): nobody is left to answer.
        const abandon = () => settle(errorAnswer(503, "The delivery was abandoned by the store"));
        signal.addEventListener("abort", abandon, { once: true });
        session.pending.set(requestId, { resolve: settle });
        write(session, {
          type: "delivery",
          request: requestId,
          headers,
          // Base64: the signature covers these exact bytes, whatever they are.
          body: delivery.body.toString("base64"),
        });
      });
    },
    answer(sessionId, requestId, answer) {
      const pending = sessions.get(sessionId)?.pending.get(requestId);
      if (pending === undefined) return false;
      if ("error" in answer) {
        const why = answer.message ? `${answer.error}: ${answer.message}` : answer.error;
        pending.resolve(errorAnswer(502, `The listening CLI could not reach its local receiver (${why})`));
      } else {
        pending.resolve({ status: answer.status, headers: answer.headers, body: answer.body });
      }
      return true;
    },
    async closeAll() {
      await Promise.all([...sessions.keys()].map((id) => close(id)));
    },
    async removeStale() {
      let removed = 0;
      for (const endpoint of await outbox.listEndpoints()) {
        if (await isStale(endpoint)) {
          if (await outbox.removeEndpoint(endpoint.id)) removed++;
        }
      }
      if (removed > 0) logger?.info({ removed }, "removed listen endpoints left by a store that stopped");
      return removed;
    },
  };

  async function isStale(endpoint: Endpoint): Promise<boolean> {
    let url: URL;
    try {
      url = new URL(endpoint.url);
    } catch {
      return false;
    }
    const match = RELAY_PATH.exec(url.pathname);
    if (match === null || url.protocol !== "http:") return false;
    // The API's own relay (under the path it is mounted at): sessions live in this process's memory.
    if (`${url.origin}${match[1]}` === origin) return !sessions.has(match[2] as string);
    // Another origin: a live store process on this host answers for its own sessions; elsewhere, not ours to judge.
    if (!LOOPBACK_HOSTS.has(url.hostname)) return false;
    try {
      const answer = await fetch(url, {
        method: "GET",
        headers: { authorization: `Bearer ${endpoint.token}` },
        signal: AbortSignal.timeout(2000),
      });
      await answer.body?.cancel();
      return answer.status !== 204;
    } catch {
      return true;
    }
  }
}
