import type { SenderLogger as Logger } from "@plant-store/sender";
import {
  createDeliveryClient,
  createSsrfGuard,
  type Endpoint,
  type EndpointVerification,
  MAX_ENDPOINT_SECRETS,
  type Outbox,
  SsrfBlockedError,
  type SsrfTargetEndpoint,
  TooManySecretsError,
  verifyEndpoint,
} from "@plant-store/sender";
import { generateWebhookSecret } from "@plant-store/types";
import { principalOf, scopeOf } from "../access/principal-of.js";
import type { RouteTable } from "../access/route-table.js";
import { createHandshakeThrottle, type HandshakeThrottle } from "../endpoints/create-handshake-throttle.js";
import { checkEndpointCaps, type EndpointCaps, resolveEndpointCaps } from "../endpoints/endpoint-caps.js";
import { invalidInput, notFound, WebhookApiError } from "../errors.js";
import { type EndpointInputs, IdSchema } from "../inputs/api-inputs.js";
import { BODY, parseInput } from "../inputs/parse-input.js";
import { readJsonBody } from "../inputs/read-json-body.js";
import { isRelayShaped } from "../listen/create-listen-relay.js";
import { presentEndpoint, presentThrottledVerification, presentVerification } from "../present.js";

/** What the endpoint routes are given (the admin app's options of the same names). */
export interface EndpointRoutesOptions {
  outbox: Outbox;
  wake: () => void;
  logger?: Logger | undefined;
  checkTarget?: ((url: string, endpoint: SsrfTargetEndpoint) => Promise<unknown>) | undefined;
  verifyEndpoint?: ((endpoint: Endpoint) => Promise<EndpointVerification>) | undefined;
  handshakeThrottle?: HandshakeThrottle | undefined;
  endpointCaps?: { operator?: Partial<EndpointCaps>; subscriber?: Partial<EndpointCaps> } | undefined;
  /** The inputs, checked against the API's event types. */
  inputs: EndpointInputs;
  /** What "send an example" sends. */
  example: { eventType: string; payload: Record<string, unknown> };
}

/**
 * Endpoints, in the caller's scope: add (with the handshake for a subscriber's), list, show, change,
 * remove, disable and enable, rotate the secret, verify, and send an example.
 */
export function endpointRoutes(options: EndpointRoutesOptions): RouteTable {
  const { outbox, wake, logger, inputs } = options;
  const caps = resolveEndpointCaps(options.endpointCaps);
  const capsOf = (subscriberId: number | null) => (subscriberId === null ? caps.operator : caps.subscriber);
  /**
   * The SSRF policy, the same for a new endpoint's URL and a changed one: only a refusal counts (a name
   * that does not resolve yet is accepted, and checked again at every delivery).
   */
  const checkUrl = async (url: string, what: string, endpoint: SsrfTargetEndpoint): Promise<void> => {
    // Only `listen` makes endpoints at the store's own relay route (issue 37: a subscriber's there passed
    // the listen exception); refused by shape, on any host, before any guard is asked.
    if (isRelayShaped(url))
      throw invalidInput(
        `Invalid ${what}: url: must not be a listen relay URL (/relay/lst_…): only plant-store listen makes those`,
      );
    if (!options.checkTarget) return;
    try {
      await options.checkTarget(url, endpoint);
    } catch (error) {
      if (error instanceof SsrfBlockedError) throw invalidInput(`Invalid ${what}: url: ${error.message}`);
    }
  };
  const handshakeThrottle = options.handshakeThrottle ?? createHandshakeThrottle();
  /**
   * Runs the handshake and records a success; a subscriber's endpoint only (the operator's need none).
   * Throws a 429 (`Retry-After`) when the endpoint's or its owner's handshakes are used up: nothing is sent.
   */
  let handshake = options.verifyEndpoint;
  const verify = async (
    endpoint: Endpoint,
  ): Promise<{ endpoint: Endpoint; verification: EndpointVerification }> => {
    const owner = endpoint.subscriberId === null ? "operator" : `subscriber ${endpoint.subscriberId}`;
    const allowed = handshakeThrottle.take(endpoint.id, owner);
    if (!allowed.allowed)
      throw new WebhookApiError(
        429,
        "ERR_TOO_MANY_HANDSHAKES",
        allowed.limit === "endpoint"
          ? `Too many handshakes to endpoint ${endpoint.id} for now: try again in ${allowed.retryAfterSeconds} s`
          : `Too many handshakes to this owner's endpoints for now: try again in ${allowed.retryAfterSeconds} s`,
        { "retry-after": String(allowed.retryAfterSeconds) },
      );
    if (!handshake) {
      const defaults = { client: createDeliveryClient(), ssrfGuard: createSsrfGuard() };
      handshake = (target) => verifyEndpoint(target, defaults);
    }
    const verification = await handshake(endpoint);
    logger?.info(
      { event: "endpoint.verification", endpointId: endpoint.id, ...presentVerification(verification) },
      "endpoint verification",
    );
    if (!verification.verified || endpoint.subscriberId === null) return { endpoint, verification };
    // Only if its URL is still the one that answered: a URL changed meanwhile stays unverified.
    const marked = await outbox.markEndpointVerified(
      endpoint.id,
      { subscriberId: endpoint.subscriberId },
      endpoint.url,
    );
    if (!marked)
      return {
        endpoint,
        verification: {
          verified: false,
          reason: "url-changed",
          message: "The endpoint's URL changed while the handshake ran; verify it again",
          webhookId: verification.webhookId,
          durationMs: verification.durationMs,
        },
      };
    return { endpoint: marked, verification };
  };

  return [
    {
      method: "GET",
      path: "/endpoints",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        ctx.body = { endpoints: (await outbox.listEndpoints(scopeOf(ctx))).map(presentEndpoint) };
      },
    },
    {
      method: "POST",
      path: "/endpoints",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const input = parseInput(
          inputs.AddEndpointInputSchema,
          await readJsonBody(ctx.req),
          "endpoint",
          BODY,
        );
        const scope = scopeOf(ctx);
        // The caps are per owner: one subscriber filling its own does not lock the others (or the
        // operator) out, and the operator's counts the operator's endpoints only.
        const owner = scope?.subscriberId ?? null;
        await checkEndpointCaps(outbox, owner, capsOf(owner), {
          adds: true,
          rateLimited: input.rateLimit !== undefined && input.rateLimit !== null,
          url: input.url,
        });
        await checkUrl(input.url, "endpoint", { subscriberId: owner });
        const generated =
          input.secret === undefined && input.secrets === undefined ? generateWebhookSecret() : undefined;
        const secrets = input.secrets ?? [input.secret ?? (generated as string)];
        const endpoint = await outbox.addEndpoint({
          url: input.url,
          token: input.token,
          secrets,
          eventTypes: input.eventTypes ?? null,
          rateLimit: input.rateLimit ?? null,
          subscriberId: scope?.subscriberId ?? null,
          ...(input.signatureHeaders === undefined ? {} : { signatureHeaders: input.signatureHeaders }),
          ...(input.headers === undefined ? {} : { headers: input.headers }),
          filter: input.filter ?? null,
        });
        ctx.status = 201;
        // A subscriber's endpoint is sent nothing until it answers the handshake, tried here at once (the
        // generated secret is what it signs with, so the receiver must already hold it to pass; if not,
        // it passes later with POST /endpoints/{id}/verify).
        // Its owner's handshakes used up: the endpoint is added all the same (its generated secret must
        // be shown now), unverified, and the answer says when to verify it again.
        let verification:
          | ReturnType<typeof presentVerification>
          | ReturnType<typeof presentThrottledVerification>
          | undefined;
        let shown = endpoint;
        if (scope)
          try {
            const checked = await verify(endpoint);
            shown = checked.endpoint;
            verification = presentVerification(checked.verification, "subscriber");
          } catch (error) {
            if (!(error instanceof WebhookApiError) || error.status !== 429) throw error;
            verification = presentThrottledVerification(`Not sent: ${error.message}`);
          }
        // A generated secret is shown exactly once, here; a secret the caller chose is never echoed.
        ctx.body = {
          endpoint: presentEndpoint(shown),
          ...(generated ? { secret: generated } : {}),
          ...(verification ? { verification } : {}),
        };
      },
    },
    ...(
      [
        ["disable", "disabled"],
        ["enable", "active"],
      ] as const
    ).map(([action, status]): RouteTable[number] => ({
      method: "POST",
      path: `/endpoints/:id/${action}`,
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const id = parseInput(IdSchema, ctx.params.id, "id");
        const endpoint = await outbox.setEndpointStatus(id, status, undefined, scopeOf(ctx));
        if (!endpoint) throw notFound("Endpoint");
        if (status === "active") wake();
        ctx.body = { endpoint: presentEndpoint(endpoint) };
      },
    })),
    {
      method: "GET",
      path: "/endpoints/:id",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const endpoint = await outbox.getEndpoint(parseInput(IdSchema, ctx.params.id, "id"), scopeOf(ctx));
        if (!endpoint) throw notFound("Endpoint");
        ctx.body = { endpoint: presentEndpoint(endpoint) };
      },
    },
    // Rotation: the next attempt (even one already queued) is signed with the new secrets and token.
    // Secrets stay unreadable: the answer shows how many there are, never their values.
    {
      method: "PATCH",
      path: "/endpoints/:id",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const id = parseInput(IdSchema, ctx.params.id, "id");
        const input = parseInput(
          inputs.UpdateEndpointInputSchema,
          await readJsonBody(ctx.req),
          "endpoint update",
          BODY,
        );
        const current = await outbox.getEndpoint(id, scopeOf(ctx));
        if (!current) throw notFound("Endpoint");
        // Moving an endpoint keeps its deliveries and history, so its new URL must pass every check a
        // new endpoint's does (its owner's guard): otherwise PATCH would be the way around the SSRF guard.
        if (input.url !== undefined)
          await checkUrl(input.url, "endpoint update", { id, subscriberId: current.subscriberId });
        // A limit set where there was none, or a move to another URL, counts against the owner's caps.
        await checkEndpointCaps(outbox, current.subscriberId, capsOf(current.subscriberId), {
          adds: false,
          rateLimited:
            input.rateLimit !== undefined && input.rateLimit !== null && current.rateLimit === null,
          url: input.url !== undefined && input.url !== current.url ? input.url : undefined,
        });
        // URL, token, secrets, subscriptions, headers and filter change together, in one transaction (a
        // filter is checked against the event types it will have, the new ones or the current ones). New subscriptions
        // decide which messages queued from now on reach the endpoint; deliveries already queued stay,
        // and go to the new URL. A subscriber's endpoint given a new URL is unverified again (the queue
        // clears it): the new URL's owner has asked for nothing until it answers POST
        // /endpoints/{id}/verify.
        const endpoint = await outbox.updateEndpoint(
          id,
          {
            ...(input.url === undefined ? {} : { url: input.url }),
            ...(input.token === undefined ? {} : { token: input.token }),
            ...(input.secrets === undefined ? {} : { secrets: input.secrets }),
            ...(input.eventTypes === undefined ? {} : { eventTypes: input.eventTypes }),
            ...(input.rateLimit === undefined ? {} : { rateLimit: input.rateLimit }),
            ...(input.signatureHeaders === undefined ? {} : { signatureHeaders: input.signatureHeaders }),
            ...(input.headers === undefined ? {} : { headers: input.headers }),
            ...(input.filter === undefined ? {} : { filter: input.filter }),
          },
          scopeOf(ctx),
        );
        if (!endpoint) throw notFound("Endpoint");
        ctx.body = { endpoint: presentEndpoint(endpoint) };
      },
    },
    {
      method: "DELETE",
      path: "/endpoints/:id",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        if (!(await outbox.removeEndpoint(parseInput(IdSchema, ctx.params.id, "id"), scopeOf(ctx))))
          throw notFound("Endpoint");
        ctx.status = 204;
      },
    },
    // Rotation without a secret ever typed into a browser, as `endpoints rotate-secret` does it: the
    // store draws the new secret and adds it to the current ones (Standard Webhooks sends one signature
    // per secret), so the receiver keeps verifying while it is given the new one. The old ones are
    // dropped with PATCH /endpoints/{id} (or `endpoints set-secrets`) once it has.
    {
      method: "POST",
      path: "/endpoints/:id/rotate-secret",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const id = parseInput(IdSchema, ctx.params.id, "id");
        // Read, checked against the limit and written in one transaction.
        const rotated = await outbox
          .rotateEndpointSecret(id, undefined, scopeOf(ctx))
          .catch((error: unknown) => {
            if (!(error instanceof TooManySecretsError)) throw error;
            throw new WebhookApiError(
              409,
              error.code,
              `Endpoint ${id} already has ${MAX_ENDPOINT_SECRETS} secrets: drop old ones with PATCH /endpoints/${id} first`,
            );
          });
        if (!rotated) throw notFound("Endpoint");
        // Shown exactly once, here, like a generated secret on POST /endpoints.
        ctx.body = { endpoint: presentEndpoint(rotated.endpoint), secret: rotated.secret };
      },
    },
    {
      method: "POST",
      path: "/endpoints/:id/verify",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const endpoint = await outbox.getEndpoint(parseInput(IdSchema, ctx.params.id, "id"), scopeOf(ctx));
        if (!endpoint) throw notFound("Endpoint");
        const checked = await verify(endpoint);
        if (checked.verification.verified) wake();
        ctx.body = {
          endpoint: presentEndpoint(checked.endpoint),
          verification: presentVerification(checked.verification, principalOf(ctx).kind),
        };
      },
    },
    // A signed example New Plant to this endpoint only, recorded like any delivery (its attempts show in
    // GET /deliveries): what a subscriber uses to try its receiver before real plants arrive.
    {
      method: "POST",
      path: "/endpoints/:id/send-example",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const id = parseInput(IdSchema, ctx.params.id, "id");
        const sent = await outbox.sendToEndpoint(id, options.example, scopeOf(ctx));
        if (!sent) throw notFound("Endpoint");
        wake();
        ctx.status = 202;
        ctx.body = { messageId: sent.messageId, webhookId: sent.webhookId };
      },
    },
  ];
}
