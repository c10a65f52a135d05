import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getFreeFixedPort, launchChromium } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliver, READ_TOKEN, type RunningApp, startApp } from "../fixtures/start-app.js";

const dir = mkdtempSync(join(tmpdir(), "plant-receiver-page-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A promise and the function that settles it. */
function signal() {
  let fire: () => void = () => undefined;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fire, fired };
}

/**
 * Holds the page's `/events` requests from the `from`-th on (1-based) until `release()`, and tells
 * when one is held. The page cannot open its stream meanwhile, which is the window in which a plant
 * could fall between the list and the stream.
 */
async function holdEvents(page: Page, from: number) {
  const held = signal();
  const released = signal();
  let count = 0;
  await page.route("**/events", async (route: Route) => {
    count++;
    if (count >= from) {
      held.fire();
      await released.fired;
    }
    await route.continue();
  });
  return { held: held.fired, release: released.fire };
}

const token = "page-token";
const secret = generateWebhookSecret();

describe("the live page in headless Chromium", () => {
  let app: RunningApp;
  let browser: Browser;
  beforeAll(async () => {
    app = await startApp(["--token", token, "--secret", secret, "--db", ":memory:"]);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it("lists plants received before it opened and appends new ones as they arrive", async () => {
    const before = JSON.stringify({ id: 1, name: "Already here", tag: "old" });
    expect((await deliver(app.url, { token, secret, body: before })).status).toBe(200);

    const page = await browser.newPage();
    await page.goto(await app.signInLink());
    await page.locator("li", { hasText: "Already here" }).waitFor();
    await page.locator('body[data-live="live"]').waitFor();

    const name = `<img src=x onerror=alert(1)> Live fern ${Date.now()}`;
    const fresh = JSON.stringify({ id: 2, name, tag: "new" });
    expect((await deliver(app.url, { token, secret, body: fresh })).status).toBe(200);

    const item = page.locator("li", { hasText: name });
    await item.waitFor();
    expect(await item.locator(".tag").textContent()).toBe("new");
    expect(await item.locator("img").count()).toBe(0);
    // Newest first: the live one is above the one loaded with the page.
    expect(await page.locator("li .name").allTextContents()).toEqual([name, "Already here"]);
    await page.close();
  });

  it("shows a plant stored after the list could have been loaded but before the stream opened", async () => {
    const page = await browser.newPage();
    // Counts the page's requests for the list, and tells when the first one has been answered.
    await page.addInitScript(() => {
      // The page's globals, typed without the DOM library (this project compiles for Node).
      const page = globalThis as unknown as { fetch: typeof fetch; plantListRequests: number };
      page.plantListRequests = 0;
      const original = page.fetch.bind(page);
      page.fetch = (input, init) => {
        if (String(input).startsWith("/plants")) page.plantListRequests++;
        return original(input, init);
      };
    });
    const listAnswered = signal();
    await page.route("**/plants?*", async (route) => {
      await route.fulfill({ response: await route.fetch() });
      listAnswered.fire();
    });
    const events = await holdEvents(page, 1);
    await page.goto(await app.signInLink(), { waitUntil: "domcontentloaded" });
    await events.held;
    // A page that asks for the list without waiting for its stream has asked by now (its script
    // has run): let that answer be taken before the plant is stored.
    if (
      (await page.evaluate(
        () => (globalThis as unknown as { plantListRequests: number }).plantListRequests,
      )) > 0
    ) {
      await listAnswered.fired;
    }
    const name = `In-between ivy ${Date.now()}`;
    expect((await deliver(app.url, { token, secret, body: JSON.stringify({ id: 3, name }) })).status).toBe(
      200,
    );
    events.release();
    await page.locator("li", { hasText: name }).waitFor({ timeout: 10_000 });
    await page.locator('body[data-live="live"]').waitFor();
    await page.close();
  });

  it("after a reconnect, shows the plants stored while it was disconnected", async () => {
    const file = join(dir, "reconnect.db");
    // Listened on by a child process, and again after that one stopped: outside the range outgoing
    // connections take ports from.
    const port = String(await getFreeFixedPort());
    const args = ["--token", token, "--secret", secret, "--db", file, "--port", port];
    let first: RunningApp | undefined = await startApp(args);
    let second: RunningApp | undefined;
    const page = await browser.newPage();
    try {
      const events = await holdEvents(page, 2);
      await page.goto(await first.signInLink());
      await page.locator('body[data-live="live"]').waitFor();
      // The server goes away (ending the stream), and comes back on the same port and file.
      expect(await first.stop()).toBe(0);
      first = undefined;
      await page.locator('body[data-live="reconnecting"]').waitFor();
      second = await startApp(args);
      // The page's reconnection is held: the plant is stored while it is not connected.
      await events.held;
      const name = `Missed-while-away monstera ${Date.now()}`;
      expect(
        (await deliver(second.url, { token, secret, body: JSON.stringify({ id: 4, name }) })).status,
      ).toBe(200);
      events.release();
      await page.locator("li", { hasText: name }).waitFor({ timeout: 10_000 });
      await page.locator('body[data-live="live"]').waitFor();
    } finally {
      await page.close();
      await first?.stop();
      await second?.stop();
    }
  });

  it("shows each delivery's details and counts refused requests by code", async () => {
    const page = await browser.newPage();
    await page.goto(await app.signInLink());
    await page.locator('body[data-live="live"]').waitFor();
    const id = `msg_${crypto.randomUUID()}`;
    const body = JSON.stringify({ id: 5, name: "Detailed dracaena" });
    const headers = { "webhook-attempt": "3" };
    expect((await deliver(app.url, { token, secret, id, body, headers })).status).toBe(200);
    expect((await deliver(app.url, { token, secret, id, body })).status).toBe(200);
    expect((await deliver(app.url, { token: "wrong-token", secret, body })).status).toBe(401);

    const first = page.locator(`#deliveries tr[data-webhook-id="${id}"][data-duplicate="false"]`);
    await first.waitFor();
    expect(await first.locator(".attempt").textContent()).toBe("3");
    expect(await first.locator(".status").textContent()).toBe("200");
    expect(await first.locator(".handled").textContent()).toMatch(/^\d+(\.\d+)? ms$/);
    // The redelivery: no webhook-attempt header, so the receiver's own count (second time it saw the id).
    const again = page.locator(`#deliveries tr[data-webhook-id="${id}"][data-duplicate="true"]`);
    await again.waitFor();
    expect(await again.locator(".attempt").textContent()).toBe("2 (seen here)");
    expect(await again.locator(".duplicate").textContent()).toBe("duplicate");
    await page.locator('#refused li[data-status="401"]', { hasText: "401: 1" }).waitFor();
    await page.close();
  });

  it("signs in with the read token typed into its form, and shows bidi and invisible characters as escapes", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.url}/`);
    await page.locator("#login").waitFor();
    await page.fill("#read-token", "not-the-read-token-0000");
    await page.click('#login button[type="submit"]');
    await page.locator("#login-message", { hasText: "read token is wrong" }).waitFor();
    await page.fill("#read-token", READ_TOKEN);
    await page.click('#login button[type="submit"]');
    await page.locator('body[data-live="live"]').waitFor();
    const name = "Fern\u202Egnp.exe\u200B";
    expect((await deliver(app.url, { token, secret, body: JSON.stringify({ id: 6, name }) })).status).toBe(
      200,
    );
    const item = page.locator("li", { hasText: "gnp.exe" });
    await item.waitFor();
    expect(await item.locator(".name").textContent()).toBe("Fern\\u202egnp.exe\\u200b");
    // The tab keeps a session, never the read token.
    const kept = await page.evaluate(() => {
      const storage = (
        globalThis as unknown as {
          sessionStorage: { length: number; key(i: number): string; getItem(k: string): string };
        }
      ).sessionStorage;
      return Array.from({ length: storage.length }, (_, i) => storage.getItem(storage.key(i)));
    });
    expect(kept).toHaveLength(1);
    expect(kept).not.toContain(READ_TOKEN);
    await context.close();
  });

  it("ends the stream on shutdown so the process still exits 0", async () => {
    const page = await browser.newPage();
    await page.goto(await app.signInLink());
    await page.locator('body[data-live="live"]').waitFor();
    expect(await app.stop()).toBe(0);
    // Had the open stream held server.close() up, the 10 s fallback would have cut it and said so.
    expect(app.output()).not.toContain("requests still running");
    expect(app.output()).toContain('"msg":"stopped"');
    await page.close();
  });
});
