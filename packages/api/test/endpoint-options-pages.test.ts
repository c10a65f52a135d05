import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSsrfGuard } from "@plant-store/sender";
import { createSqliteOutbox, type SqliteOutbox } from "@plant-store/sender/sqlite";
import { callApi, launchChromium } from "@plant-store/testing";
import { PLANT_STORE_WEBHOOKS, type PlantStoreEvents } from "@plant-store/types";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookApi, type WebhookApi } from "../src/index.js";

// Issue 41 on the pages, in headless Chromium: the operator page and the portal show an endpoint's
// filter, what it excluded and its signature header names on its row, set a filter with the row's
// Filter button and the form it fills, and show the store's 400 (what is wrong, and where) as the notice.

const token = "operator-token-endpoint-pages-0123";
const apiKey = "gateway-key-pages-never-shown";
const dir = mkdtempSync(join(tmpdir(), "endpoint-options-pages-"));
let outbox: SqliteOutbox<PlantStoreEvents>;
let api: WebhookApi;
let server: Server;
let base: string;
let browser: Browser;

interface Endpoint {
  id: number;
}

const call = (method: string, path: string, body?: unknown, bearer: string = token) =>
  callApi(base, method, path, { token: bearer, body });

/** Every text node of the page, hidden ones included. */
const pageText = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { body: { textContent: string } } }).document.body.textContent,
  );

/** Sets the endpoint's filter through its row's Filter button and the form it fills, and waits for the notice. */
async function setFilter(page: Page, id: number, filter: string, notice: string) {
  await page.locator(`tr[data-endpoint-id="${id}"] button[data-action="filter"]`).click();
  await page.fill("#endpoint-filter-expression", filter);
  await page.click("#endpoint-filter-button");
  await page.locator("#notice", { hasText: notice }).waitFor();
}

beforeAll(async () => {
  outbox = createSqliteOutbox(join(dir, "outbox.db"), { catalog: PLANT_STORE_WEBHOOKS });
  api = createWebhookApi({
    outbox,
    operatorTokens: [token],
    portalSecret: "portal-secret-of-at-least-32-characters",
    eventTypes: PLANT_STORE_WEBHOOKS.eventTypes,
    // Nothing listens on port 9: a subscriber's handshake fails at once, on this machine.
    ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
  });
  server = createServer(api.node).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await new Promise((resolve) => server?.close(resolve));
  await outbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("endpoint options on the pages, in headless Chromium", () => {
  it("the operator page shows the filter, what it excluded and the svix style on the row, and sets a filter, showing the store's refusal", async () => {
    const added = await call("POST", "/endpoints", {
      url: "http://127.0.0.1:9/tropical",
      token: "receiver-token-0123",
      eventTypes: ["newPlant"],
      filter: 'payload.tag == "tropical"',
      signatureHeaders: "svix",
      headers: { "x-api-key": apiKey },
    });
    expect(added.status).toBe(201);
    const { id } = (added.body as { endpoint: Endpoint }).endpoint;
    await outbox.enqueue({ eventType: "newPlant", payload: { id: 1, name: "Monstera", tag: "tropical" } });
    await outbox.enqueue({ eventType: "newPlant", payload: { id: 2, name: "Ficus", tag: "indoor" } });

    const page = await browser.newPage();
    await page.goto(`${base}/`);
    await page.fill("#token", token);
    await page.click('#login button[type="submit"]');
    const row = page.locator(`tr[data-endpoint-id="${id}"]`);
    await row.locator(".filter", { hasText: 'filter: payload.tag == "tropical"' }).waitFor();
    expect(await row.locator(".filtered-count").textContent()).toBe("1 excluded by its filter");
    expect(await row.locator(".signature-headers").textContent()).toBe("signed as svix-* headers");
    expect(await pageText(page)).not.toContain(apiKey);

    // The button fills the form with the current filter.
    await row.locator('button[data-action="filter"]').click();
    expect(await page.inputValue("#endpoint-filter-expression")).toBe('payload.tag == "tropical"');
    expect(await page.inputValue("#endpoint-filter-endpoint")).toBe(String(id));
    // `id` is an integer in the New Plant's schema: refused at the constant, and nothing changed.
    await setFilter(page, id, 'payload.id == "x"', "payload.id is a number");
    expect(await page.locator("#notice").textContent()).toMatch(/^Failed: filter: .* \(at 1:15\)$/);
    await setFilter(page, id, 'payload.tag == "tropical" &&', "syntax error");
    expect(await page.locator("#notice").textContent()).toMatch(/\(at 1:\d+\)$/);
    expect(await row.locator(".filter").textContent()).toBe('filter: payload.tag == "tropical"');

    await setFilter(
      page,
      id,
      'payload.name.startsWith("M")',
      "is sent only the messages its filter is true for",
    );
    await row.locator(".filter", { hasText: 'filter: payload.name.startsWith("M")' }).waitFor();
    await setFilter(page, id, "", "has no filter");
    await row.locator(".filter").waitFor({ state: "detached" });
    // What it excluded stays counted.
    expect(await row.locator(".filtered-count").textContent()).toBe("1 excluded by its filter");
    await page.close();
  });

  it("the portal shows a subscriber's own filter and sets it, showing the store's refusal", async () => {
    const { subscriber, token: subscriberToken } = await outbox.addSubscriber({ name: "Fern fans" });
    const added = await call(
      "POST",
      "/endpoints",
      { url: "http://127.0.0.1:9/ferns", token: "receiver-token-0123", eventTypes: ["newPlant"] },
      subscriberToken,
    );
    expect(added.status).toBe(201);
    const { id } = (added.body as { endpoint: Endpoint }).endpoint;
    const link = await call("POST", `/subscribers/${subscriber.id}/portal-links`, {});
    const page = await browser.newPage();
    await page.goto((link.body as { url: string }).url);
    const row = page.locator(`tr[data-endpoint-id="${id}"]`);
    await row.waitFor();
    expect(await row.locator(".filter").count()).toBe(0);
    expect(await row.locator(".signature-headers").count()).toBe(0);

    await setFilter(page, id, "nosuch(payload.name)", "unknown function nosuch (at 1:1)");
    await setFilter(page, id, 'payload.name == "Fern"', "is sent only the messages its filter is true for");
    await row.locator(".filter", { hasText: 'filter: payload.name == "Fern"' }).waitFor();
    expect(await row.locator(".filtered-count").textContent()).toBe("0 excluded by its filter");
    const shown = await call("GET", `/endpoints/${id}`, undefined, subscriberToken);
    expect(shown.body).toMatchObject({ endpoint: { filter: 'payload.name == "Fern"' } });
    await page.close();
  });
});
