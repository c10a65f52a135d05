import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  createDeliveryClient,
  createSsrfGuard,
  type EndpointVerification,
  newWebhookId,
  signDelivery,
  verifyEndpoint,
} from "@plant-store/sender";
import { generateWebhookKeyPair, generateWebhookSecret, type NewPlant } from "@plant-store/types";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetchHandler, createNodeMiddleware, type PlantWebhookOutcome } from "../../src/index.js";
import { createPlantWebhookMiddleware, createPlantWebhookRouter } from "../../src/koa.js";
import { listen } from "../fixtures/listen.js";

// Every adapter answers the store's verification request out of the box: the request is made by the
// sender's own `verifyEndpoint`, over real HTTP on 127.0.0.1, and no New Plant handler sees it.

const TOKEN = "handshake-t0ken";
const secret = generateWebhookSecret();
/** A secret the receiver still holds from before a rotation; the store no longer signs with it. */
const oldSecret = generateWebhookSecret();
const keyPair = generateWebhookKeyPair();
const PATH = "/plant/webhook";

interface Received {
  plants: NewPlant[];
  outcomes: PlantWebhookOutcome[];
}

/** The fetch handler behind node:http: the request's bytes in, the Response's bytes out. */
function fetchServer(handle: (request: Request) => Promise<Response>): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === "string") headers.set(name, value);
      const response = await handle(
        new Request(`http://127.0.0.1${req.url}`, {
          method: req.method ?? "POST",
          headers,
          ...(req.method === "GET" ? {} : { body: Buffer.concat(chunks) }),
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(await response.text());
    });
  });
}

const options = (received: Received) => ({
  path: PATH,
  tokens: [TOKEN],
  // Both kinds of key (the store signs with every secret of the endpoint), and two secrets mid-rotation:
  // the answer carries one response per whsec_ secret, so whichever the store holds matches.
  secrets: [oldSecret, secret, keyPair.publicKey],
  onNewPlant: (plant: NewPlant) => void received.plants.push(plant),
});

const adapters: Array<[string, (received: Received) => Server]> = [
  [
    "Koa router (@plant-store/receiver/koa)",
    (received) => {
      const router = createPlantWebhookRouter(options(received));
      const app = new Koa();
      app.use(async (ctx, next) => {
        await next();
        if (ctx.state.plantWebhook) received.outcomes.push(ctx.state.plantWebhook);
      });
      app.use(router.routes()).use(router.allowedMethods());
      return createServer(app.callback());
    },
  ],
  [
    "Koa middleware",
    (received) => {
      const app = new Koa();
      app.use(async (ctx, next) => {
        await next();
        if (ctx.state.plantWebhook) received.outcomes.push(ctx.state.plantWebhook);
      });
      app.use(createPlantWebhookMiddleware(options(received)));
      return createServer(app.callback());
    },
  ],
  [
    "node:http middleware",
    (received) =>
      createServer(
        createNodeMiddleware({
          ...options(received),
          onOutcome: (outcome) => received.outcomes.push(outcome),
        }),
      ),
  ],
  [
    "fetch handler",
    (received) =>
      fetchServer(
        createFetchHandler({ ...options(received), onOutcome: (outcome) => received.outcomes.push(outcome) }),
      ),
  ],
];

describe.each(adapters)("%s", (_name, build) => {
  const received: Received = { plants: [], outcomes: [] };
  const client = createDeliveryClient();
  const ssrfGuard = createSsrfGuard({ allowPrivateTargets: true });
  let server: Awaited<ReturnType<typeof listen>>;
  let url: string;
  beforeAll(async () => {
    server = await listen(build(received));
    url = `${server.origin}${PATH}`;
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });
  const verify = (endpoint: { token?: string; secrets?: string[] } = {}): Promise<EndpointVerification> =>
    verifyEndpoint(
      { url, token: endpoint.token ?? TOKEN, secrets: endpoint.secrets ?? [secret] },
      { client, ssrfGuard },
    );

  it("answers the sender's verification request, so verifyEndpoint says verified, and runs no handler", async () => {
    const before = received.outcomes.length;
    const result = await verify();
    expect(result).toMatchObject({ verified: true, status: 200 });
    expect(received.plants).toEqual([]);
    expect(received.outcomes.slice(before)).toStrictEqual([
      { outcome: "verification", webhookId: result.webhookId },
    ]);
  });

  it("is verified while the store rotates: the endpoint's new secret (not held yet) beside the one held", async () => {
    const result = await verify({ secrets: [generateWebhookSecret(), secret, keyPair.signingKey] });
    expect(result).toMatchObject({ verified: true, status: 200 });
  });

  it("is verified by the receiver's older secret when the store still signs with only that one", async () => {
    expect(await verify({ secrets: [oldSecret] })).toMatchObject({ verified: true, status: 200 });
  });

  it("passes the v1a signature but is not verified without the endpoint's whsec_ secret: its response proves another", async () => {
    const result = await verify({ secrets: [generateWebhookSecret(), keyPair.signingKey] });
    expect(result).toMatchObject({ verified: false, reason: "wrong-response", status: 200 });
  });

  it.each([
    ["a token it does not accept", { token: "another-t0ken" }],
    ["only a secret it does not hold", { secrets: [generateWebhookSecret()] }],
  ])("refuses a verification request with %s: 401, not verified", async (_name, endpoint) => {
    const result = await verify(endpoint);
    expect(result).toMatchObject({ verified: false, reason: "status", status: 401 });
    expect(received.plants).toEqual([]);
  });

  it("still hands a New Plant delivery to its handler", async () => {
    const body = JSON.stringify({ id: 7, name: "Monstera deliciosa" });
    const response = await fetch(url, {
      method: "POST",
      headers: signDelivery({
        webhookId: newWebhookId(),
        body,
        secrets: [secret],
        token: TOKEN,
        eventType: "newPlant",
      }),
      body,
    });
    expect(response.status).toBe(200);
    expect(received.plants).toEqual([{ id: 7, name: "Monstera deliciosa" }]);
  });
});
