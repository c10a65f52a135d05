import { generateWebhookSecret } from "@plant-store/types";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliver, type RunningApp, startApp } from "../fixtures/start-app.js";

const token = "page-token";
const secret = generateWebhookSecret();

describe("the live page in headless Chromium", () => {
  let app: RunningApp;
  let browser: Browser;
  beforeAll(async () => {
    app = await startApp(["--token", token, "--secret", secret, "--db", ":memory:"]);
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it("lists plants received before it opened and appends new ones as they arrive", async () => {
    const before = JSON.stringify({ id: 1, name: "Already here", tag: "old" });
    expect((await deliver(app.url, { token, secret, body: before })).status).toBe(200);

    const page = await browser.newPage();
    await page.goto(app.url);
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

  it("ends the stream on shutdown so the process still exits 0", async () => {
    const page = await browser.newPage();
    await page.goto(app.url);
    await page.locator('body[data-live="live"]').waitFor();
    expect(await app.stop()).toBe(0);
    // Had the open stream held server.close() up, the 10 s fallback would have cut it and said so.
    expect(app.output()).not.toContain("requests still running");
    expect(app.output()).toContain('"msg":"stopped"');
    await page.close();
  });
});
