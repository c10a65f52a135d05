import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { componentJsonSchema } from "../src/component-json-schema.js";
import { openapi } from "../src/openapi.js";
import { createAjv } from "./ajv.js";

// The pull side (issue 40) is documented beside the webhook, like the handshake: a request the receiver
// makes of the store, not a webhook the store sends, so neither `webhooks` nor `paths` holds it.
const pull = openapi.components.pathItems.EndpointEvents.get;
const page = pull.responses["200"].content["application/json"].examples.page;

describe("the pull protocol in the contract", () => {
  it("is a reusable path item beside the webhook, which points at it; webhooks and paths are unchanged", () => {
    expect(Object.keys(openapi.webhooks)).toStrictEqual(["/plant/webhook"]);
    expect(openapi.paths).toStrictEqual({});
    expect(pull.operationId).toBe("listEndpointEvents");
    expect(openapi.webhooks["/plant/webhook"].post.description).toContain(
      "`components.pathItems.EndpointEvents`",
    );
  });

  it("says what is signed, what the cursor is, and what a 410 means", () => {
    expect(pull.description).toContain("the headers and the exact body they sign");
    expect(pull.description).toContain("de-duplicates both by `webhook-id`");
    expect(pull.description).toContain("`next` is opaque");
    expect(pull.description).toContain("410 with `oldestCursor`");
    expect(pull.parameters.map((parameter) => [parameter.name, parameter.in])).toStrictEqual([
      ["after", "query"],
      ["since", "query"],
      ["limit", "query"],
    ]);
    expect(pull.responses["410"].content["application/json"].schema).toStrictEqual({
      $ref: "#/components/schemas/EventsExpired",
    });
  });

  it("documents an event whose signature is the HMAC of its headers and body, computed here with node:crypto alone", () => {
    const [, secret] = /`whsec_([^`]+)`/.exec(page.summary) ?? [];
    if (secret === undefined) throw new Error("the example names no secret");
    const [event] = page.value.events;
    if (event === undefined) throw new Error("the example holds no event");
    const { headers, body } = event;
    const mac = createHmac("sha256", Buffer.from(secret, "base64"))
      .update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${body}`)
      .digest("base64");
    expect(headers["webhook-signature"]).toBe(`v1,${mac}`);
    expect(headers["webhook-id"]).toBe(event.webhookId);
    expect(headers["webhook-event-type"]).toBe(event.eventType);
    expect(JSON.parse(body)).toStrictEqual({ id: 1, name: "Monstera deliciosa", tag: "tropical" });
  });

  it("lets an independent JSON Schema validator tell a page and a 410 from anything else", () => {
    const ajv = createAjv();
    const validPage = ajv.compile(componentJsonSchema("EventPage"));
    const expired = ajv.compile(componentJsonSchema("EventsExpired"));
    const event = page.value.events[0];
    expect(validPage(page.value)).toBe(true);
    expect(validPage({ events: [], next: null })).toBe(true);
    expect(validPage({ events: [] })).toBe(false);
    expect(validPage({ events: [{ ...event, body: undefined }], next: "1" })).toBe(false);
    expect(
      validPage({ events: [{ ...event, headers: { "webhook-id": event?.webhookId } }], next: "1" }),
    ).toBe(false);
    expect(validPage({ events: [{ ...event, body: { id: 1 } }], next: "1" })).toBe(false);
    expect(expired({ error: 410, message: "gone", oldestCursor: "40" })).toBe(true);
    expect(expired({ error: 410, message: "gone" })).toBe(false);
    expect(expired({ error: 404, message: "gone", oldestCursor: "40" })).toBe(false);
  });
});
