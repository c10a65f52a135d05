import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium } from "@plant-store/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type StoreProcess, startStore } from "../fixtures/store-process.js";

const adminToken = "store-page-admin-token-0123";
// What a hostile receiver could answer: markup, a NUL and a line separator, all to be shown as text.
const hostileAnswer =
  '<img src=x onerror="document.body.dataset.pwned=1"><b>down</b>\u0000 for\u2028maintenance';

describe("the store page in headless Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-page-"));
  let receiver: Server;
  let receiverUrl: string;
  let calls = 0;
  let store: StoreProcess;
  let browser: Browser;

  async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${store.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  beforeAll(async () => {
    // A receiver that is down for the first request, then fine: with one attempt per round the first
    // delivery ends failed, and a retry from the page delivers it.
    receiver = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        calls += 1;
        if (calls === 1) response.writeHead(503, { "content-type": "text/html" }).end(hostileAnswer);
        else response.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
      });
    });
    receiver.listen(0, "127.0.0.1");
    await new Promise((resolve) => receiver.once("listening", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/plant/webhook`;
    store = await startStore(
      // Alerts at a run's first failure, so one refused connection shows on the page.
      [
        "--db",
        join(dir, "store.db"),
        "--allow-private-targets",
        "--allow-private-targets-for-subscribers",
        "--retry-schedule",
        "0",
        "--alert-after",
        "0",
      ],
      { PLANT_STORE_ADMIN_TOKEN: adminToken },
    );
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows a failed delivery's attempts, retries it on a click and shows the new attempt arrive", async () => {
    const { endpoint } = await admin<{ endpoint: { id: number } }>("POST", "/endpoints", {
      url: receiverUrl,
      token: "receiver-token",
    });
    await admin("POST", "/plants", { name: "Page-tested pothos" });

    const page = await browser.newPage();
    // A single-use sign-in code travels in the fragment, which the browser never sends; the page spends
    // it on a session for this tab and takes it off the address bar.
    const { code } = await admin<{ code: string }>("POST", "/login-codes");
    await page.goto(`${store.url}/#code=${code}`);
    await page.locator("#main").waitFor();
    expect(page.url()).toBe(`${store.url}/`);
    const row = page.locator('tr[data-delivery-id][data-status="failed"]');
    await row.waitFor();
    await row.locator('button[data-action="attempts"]').click();
    const first = page.locator('tr.attempt[data-attempt="1"]');
    await first.waitFor();
    expect(await first.getAttribute("data-status")).toBe("503");
    // The receiver's answer is shown as text, control characters made visible, never as markup; its
    // NUL was recorded as U+FFFD (text a database can hold).
    const answer = (await first.locator(".answer").textContent()) ?? "";
    expect(answer).toContain("<b>down</b>\uFFFD for\\u2028maintenance");
    expect(await page.locator("tr.attempt img, tr.attempt b").count()).toBe(0);
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { body: { dataset: Record<string, string> } } }).document.body
            .dataset.pwned,
      ),
    ).toBeUndefined();
    // The endpoint's health: one attempt, none succeeded, failing since then.
    const endpointRow = page.locator(`tr[data-endpoint-id="${endpoint.id}"]`);
    await endpointRow.locator(".rate", { hasText: "0 % (0/1)" }).waitFor();
    expect(await endpointRow.locator(".failing").textContent()).not.toBe("—");

    await row.locator('button[data-action="retry"]').click();
    const second = page.locator('tr.attempt[data-attempt="2"][data-status="200"]');
    await second.waitFor();
    await page.locator('tr[data-delivery-id][data-status="delivered"]').waitFor();
    // One row per delivery and one attempts table under it, whatever states it went through.
    expect(await page.locator("tr[data-delivery-id]").count()).toBe(1);
    expect(await page.locator("tr[data-details-for]").count()).toBe(1);
    expect(await page.locator("tr.attempt").count()).toBe(2);
    expect(calls).toBe(2);
    await endpointRow.locator(".rate", { hasText: "50 % (1/2)" }).waitFor();
    // A 2xx ends the failing run.
    await endpointRow.locator(".failing", { hasText: "—" }).waitFor();
    await page.close();
  });

  it("disables and enables an endpoint, rotates its secret and replays to it from the page, asking for the token once", async () => {
    const { endpoint } = await admin<{ endpoint: { id: number } }>("POST", "/endpoints", {
      url: `${receiverUrl}?second`,
      token: "receiver-token",
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${store.url}/`);
    await page.locator("#login").waitFor();
    await page.fill("#token", "not-the-admin-token");
    await page.click('#login button[type="submit"]');
    await page.locator("#login-message", { hasText: "operator token is wrong" }).waitFor();
    await page.fill("#token", adminToken);
    await page.click('#login button[type="submit"]');

    const row = page.locator(`tr[data-endpoint-id="${endpoint.id}"]`);
    await row.locator('button[data-action="disable"]').click();
    await page.locator(`tr[data-endpoint-id="${endpoint.id}"][data-status="disabled"]`).waitFor();
    expect(await row.locator(".reason").textContent()).toBeTruthy();
    const { endpoints } = await admin<{
      endpoints: Array<{ id: number; status: string; secretCount: number }>;
    }>("GET", "/endpoints");
    expect(endpoints.find((item) => item.id === endpoint.id)?.status).toBe("disabled");
    await row.locator('button[data-action="enable"]').click();
    await page.locator(`tr[data-endpoint-id="${endpoint.id}"][data-status="active"]`).waitFor();

    await row.locator('button[data-action="rotate"]').click();
    const notice = page.locator("#notice", { hasText: "whsec_" });
    await notice.waitFor();
    const after = await admin<{ endpoints: Array<{ id: number; status: string; secretCount: number }> }>(
      "GET",
      "/endpoints",
    );
    expect(after.endpoints.find((item) => item.id === endpoint.id)).toMatchObject({
      status: "active",
      secretCount: 2,
    });

    // Subscriptions: every event type until changed; a type the store does not have is refused, and
    // saving the form changes what the row shows and what the store keeps.
    const types = row.locator(".event-types");
    expect(await types.textContent()).toBe("all");
    await row.locator('button[data-action="event-types"]').click();
    expect(await page.inputValue("#subscribe-endpoint")).toBe(String(endpoint.id));
    await page.fill("#subscribe-types", "orderCreated");
    await page.click("#subscribe-button");
    await page.locator("#notice", { hasText: "matches none of this API's event types (newPlant" }).waitFor();
    await page.fill("#subscribe-types", "newPlant, new*");
    await page.click("#subscribe-button");
    await types.filter({ hasText: "newPlant, new*" }).waitFor();
    const subscribed = await admin<{ endpoint: { eventTypes: string[] | null } }>(
      "GET",
      `/endpoints/${endpoint.id}`,
    );
    expect(subscribed.endpoint.eventTypes).toEqual(["newPlant", "new*"]);

    // Replay to this endpoint, which was subscribed after the plant was added: it gets that plant too.
    await page.selectOption("#replay-endpoint", String(endpoint.id));
    await page.fill("#replay-since", "2000-01-01T00:00:00");
    await page.click("#replay-button");
    await page
      .locator("#notice", { hasText: `Replay queued 1 deliveries to endpoint ${endpoint.id}` })
      .waitFor();
    await page
      .locator(`tr[data-delivery-id][data-status="delivered"]:has(td:nth-child(3):text-is("${endpoint.id}"))`)
      .waitFor();
    // The deliveries list filtered by event type: the page asks the store for that type only.
    const filtered = page.waitForRequest((request) => request.url().includes("eventType=newPlant"));
    await page.selectOption("#event-type-filter", "newPlant");
    await filtered;
    const shownTypes = await page.locator("tr[data-delivery-id] td.event-type").allTextContents();
    expect(shownTypes.length).toBeGreaterThan(0);
    expect(new Set(shownTypes)).toEqual(new Set(["newPlant"]));

    // A reload keeps the tab's session: no second prompt. The tab holds a session, never the token.
    await page.reload();
    await row.waitFor();
    expect(await page.locator("#login").isHidden()).toBe(true);
    const kept = await page.evaluate(() => {
      const storage = (
        globalThis as unknown as {
          sessionStorage: { length: number; key(i: number): string; getItem(k: string): string };
        }
      ).sessionStorage;
      return Array.from({ length: storage.length }, (_, i) => storage.getItem(storage.key(i)));
    });
    expect(kept).toHaveLength(1);
    expect(kept).not.toContain(adminToken);
    // Signing out ends the session on the server too (the page asks for it as it shows the form again).
    await page.click("#sign-out");
    await page.locator("#login").waitFor();
    const status = () =>
      fetch(`${store.url}/endpoints`, { headers: { authorization: `Bearer ${kept[0]}` } }).then(
        (r) => r.status,
      );
    await vi.waitFor(async () => expect(await status()).toBe(401), { timeout: 10_000, interval: 50 });
    await context.close();
  });

  it("refuses a used sign-in code and a link carrying the admin token, asking for the token instead", async () => {
    const { code } = await admin<{ code: string }>("POST", "/login-codes");
    expect(
      (
        await fetch(`${store.url}/sessions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ code }),
        })
      ).status,
    ).toBe(201);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${store.url}/#code=${code}`);
    await page.locator("#login-message", { hasText: "cannot be used" }).waitFor();
    expect(await page.locator("#main").isHidden()).toBe(true);
    expect(page.url()).toBe(`${store.url}/`);
    // A page of its own: the same document with another fragment would not run the script again.
    const legacy = await context.newPage();
    await legacy.goto(`${store.url}/#token=${adminToken}`);
    await legacy
      .locator("#login-message", { hasText: "Links carrying the operator token are refused" })
      .waitFor();
    expect(legacy.url()).toBe(`${store.url}/`);
    expect(await legacy.locator("#main").isHidden()).toBe(true);
    await context.close();
  });

  it("shows bidirectional controls and invisible characters in an endpoint's URL as \\u escapes", async () => {
    // Rendered as they are, U+202E made "…?x=\u202Egnp.exe" read as ending in "exe.png".
    const hidden = "\u202Egnp.exe\u202C\u200B\u2066\uFEFF\u061C\u00AD";
    await admin("POST", "/endpoints", { url: `${receiverUrl}?x=${hidden}`, token: "receiver-token" });
    const { code } = await admin<{ code: string }>("POST", "/login-codes");
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${store.url}/#code=${code}`);
    const cell = page.locator("#endpoints td.wrap", { hasText: "gnp.exe" });
    await cell.waitFor();
    const text = (await cell.textContent()) ?? "";
    expect(text).toContain("?x=\\u202egnp.exe\\u202c\\u200b\\u2066\\ufeff\\u061c\\u00ad");
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff\u061c\u00ad]/);
    await context.close();
  });

  it("marks a subscriber's unverified endpoint and runs the handshake again from the page", async () => {
    const { token } = await admin<{ token: string }>("POST", "/subscribers", { name: "Page subscriber" });
    // Nothing listens on port 9: the handshake gets no answer, so the endpoint stays unverified.
    const response = await fetch(`${store.url}/endpoints`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/plant/webhook", token: "receiver-token" }),
    });
    const { endpoint } = (await response.json()) as { endpoint: { id: number; subscriberId: number } };
    const { code } = await admin<{ code: string }>("POST", "/login-codes");
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${store.url}/#code=${code}`);
    const row = page.locator(`tr[data-endpoint-id="${endpoint.id}"][data-verified="false"]`);
    await row.waitFor();
    expect(await row.locator(".state-unverified").textContent()).toBe("unverified");
    expect(await row.locator(".owner").textContent()).toBe(`subscriber ${endpoint.subscriberId}`);
    await row.locator('button[data-action="verify"]').click();
    await page
      .locator("#notice", { hasText: `Endpoint ${endpoint.id} is still unverified: No answer` })
      .waitFor();
    await context.close();
  });

  it("sets and lifts an endpoint's rate limit from the page", async () => {
    const { endpoint } = await admin<{ endpoint: { id: number } }>("POST", "/endpoints", {
      url: `${receiverUrl}?limited`,
      token: "receiver-token",
    });
    const { code } = await admin<{ code: string }>("POST", "/login-codes");
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${store.url}/#code=${code}`);
    await page.locator(`#rate-endpoint option[value="${endpoint.id}"]`).waitFor({ state: "attached" });
    await page.selectOption("#rate-endpoint", String(endpoint.id));
    await page.fill("#rate-limit", "7");
    await page.click("#rate-button");
    const row = page.locator(`tr[data-endpoint-id="${endpoint.id}"]`);
    await row.locator(".rate-limit", { hasText: "at most 7/s" }).waitFor();
    const shown = await admin<{ endpoint: { rateLimit: number | null } }>("GET", `/endpoints/${endpoint.id}`);
    expect(shown.endpoint.rateLimit).toBe(7);
    await page.fill("#rate-limit", "");
    await page.click("#rate-button");
    await page.locator("#notice", { hasText: `Endpoint ${endpoint.id} has no rate limit.` }).waitFor();
    await row.locator(".rate-limit").waitFor({ state: "detached" });
    await context.close();
  });

  it("moves an endpoint to another URL from the page, and shows the store's refusal of a bad one", async () => {
    const { endpoint } = await admin<{ endpoint: { id: number } }>("POST", "/endpoints", {
      url: `${receiverUrl}?before-move`,
      token: "receiver-token",
    });
    const moved = `${receiverUrl}?after-move`;
    const { code } = await admin<{ code: string }>("POST", "/login-codes");
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${store.url}/#code=${code}`);
    const row = page.locator(`tr[data-endpoint-id="${endpoint.id}"]`);
    await row.locator('button[data-action="move"]').click();
    expect(await page.inputValue("#move-endpoint")).toBe(String(endpoint.id));
    expect(await page.inputValue("#move-url")).toBe(`${receiverUrl}?before-move`);
    await page.fill("#move-url", moved);
    await page.click("#move-button");
    await row.locator("td.wrap", { hasText: "?after-move" }).waitFor();
    await page
      .locator("#notice", { hasText: `Endpoint ${endpoint.id} moved to ${moved}; its next` })
      .waitFor();
    const stored = async () =>
      (await admin<{ endpoint: { url: string; verified: boolean } }>("GET", `/endpoints/${endpoint.id}`))
        .endpoint;
    // The operator's endpoint needs no handshake: it stays verified.
    expect(await stored()).toMatchObject({ url: moved, verified: true });
    // The endpoint's list in the forms follows the move.
    expect(await page.locator(`#move-endpoint option[value="${endpoint.id}"]`).textContent()).toContain(
      "?after-move",
    );

    // Credentials in a URL: the store refuses it with its own message (which never repeats them), the
    // page shows that message, and nothing changed.
    const refused = "http://u:p@example.com/";
    const answer = await fetch(`${store.url}/endpoints/${endpoint.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ url: refused }),
    });
    expect(answer.status).toBe(400);
    const { message } = (await answer.json()) as { message: string };
    expect(message).toMatch(/^Invalid endpoint update: url: /);
    await page.fill("#move-url", refused);
    await page.click("#move-button");
    await page.locator("#notice", { hasText: `Failed: ${message}` }).waitFor();
    expect(await stored()).toMatchObject({ url: moved, verified: true });
    expect(await row.locator("td").nth(1).textContent()).toBe(moved);
    await context.close();
  });

  it("lists the alerts: an endpoint that refuses connections is failing and its delivery failed", async () => {
    // Nothing listens on port 9; with one attempt per round the delivery fails at its first attempt.
    const { endpoint } = await admin<{ endpoint: { id: number } }>("POST", "/endpoints", {
      url: "http://127.0.0.1:9/alerts-page",
      token: "receiver-token",
    });
    await admin("POST", "/plants", { name: "Alerting aloe" });
    const { code } = await admin<{ code: string }>("POST", "/login-codes");
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${store.url}/#code=${code}`);
    const about = (type: string) =>
      page.locator(`#alerts li[data-alert-type="${type}"][data-endpoint-id="${endpoint.id}"]`);
    await about("delivery.failed").waitFor();
    expect(await about("endpoint.failing").textContent()).toContain("ECONNREFUSED");
    expect(await about("delivery.failed").textContent()).toContain("newPlant");
    expect(await page.locator("#no-alerts").isHidden()).toBe(true);
    await context.close();
  });
});
