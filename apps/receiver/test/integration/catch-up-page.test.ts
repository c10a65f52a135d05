import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAppEvent } from "@plant-store/app-shell";
import type { Outbox } from "@plant-store/sender";
import { createSqliteOutbox } from "@plant-store/sender/sqlite";
import { launchChromium, waitFor } from "@plant-store/testing";
import { generateWebhookSecret, NEW_PLANT_EVENT } from "@plant-store/types";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningApp, startApp } from "../fixtures/start-app.js";
import { type EventsApi, startEventsApi } from "../fixtures/start-events-api.js";

const dir = mkdtempSync(join(tmpdir(), "plant-receiver-catch-up-page-"));
const token = "endpoint-token-catch-up-page";
const secret = generateWebhookSecret();

describe("the receiver's page after a catch-up run, in headless Chromium", () => {
  let outbox: Outbox;
  let api: EventsApi;
  let app: RunningApp | undefined;
  let browser: Browser;
  beforeAll(async () => {
    outbox = createSqliteOutbox(join(dir, "store.db"));
    api = await startEventsApi(outbox, token);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await api?.close();
    await outbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows where the catch-up is, its last run, what it handled and the altered event it refused", async () => {
    // Three plants the receiver never got pushed (its endpoint's URL answers nothing), one altered in transit.
    const { id: endpointId } = await outbox.addEndpoint({
      url: "http://127.0.0.1:9/plant/webhook",
      token,
      secrets: [secret],
    });
    const webhookIds: string[] = [];
    for (const [id, name] of [
      [1, "Monstera deliciosa"],
      [2, "Ficus lyrata"],
      [3, "Calathea orbifolia"],
    ] as const)
      webhookIds.push(
        (await outbox.enqueue({ eventType: NEW_PLANT_EVENT, payload: { id, name } })).webhookId,
      );
    const altered = webhookIds[1] ?? "";
    api.tamper(altered);

    app = await startApp([
      ...["--token", token, "--secret", secret, "--db", join(dir, "receiver.db")],
      ...["--catch-up-from", api.url(endpointId), "--catch-up-token", token, "--catch-up-every", "1m"],
    ]);
    const running = app;
    // The run on start: every event pulled, the altered one refused (its code from the log line).
    const pulled = () =>
      running.lines
        .map((line) => readAppEvent(JSON.parse(line)))
        .filter((event) => event?.event === "catch-up.event");
    await waitFor(() => (pulled().length === 3 ? true : undefined), 20_000);
    const refused = pulled().find(
      (event) => event?.event === "catch-up.event" && event.outcome === "refused",
    );
    expect(refused).toMatchObject({ webhookId: altered });
    const code = refused?.event === "catch-up.event" ? refused.code : undefined;
    expect(code).toBeTruthy();

    const page = await browser.newPage();
    await page.goto(await running.signInLink());
    const line = page.locator("#catch-up");
    await page.locator("#catch-up", { hasText: "pulled: 2 handled, 0 already handled, 1 refused" }).waitFor();
    const text = (await line.textContent()) ?? "";
    expect(await line.getAttribute("data-status")).not.toBe("off");
    expect(text).toContain(`from ${api.url(endpointId)}`);
    // A last run happened (its time, not "never"), and the next is planned.
    expect(text).toMatch(/last run \d/);
    expect(text).not.toContain("last run never");
    expect(text).not.toContain("last run failed");
    // The refused event, named by its webhook id and why.
    const items = page.locator("#catch-up-refused li");
    expect(await items.count()).toBe(1);
    expect(await items.first().getAttribute("data-webhook-id")).toBe(altered);
    expect(await items.first().textContent()).toContain(`${altered}: ${code}`);
    // The two others were handled: they are on the page's plant list; the altered one is not.
    await page.locator("li", { hasText: "Monstera deliciosa" }).waitFor();
    await page.locator("li", { hasText: "Calathea orbifolia" }).waitFor();
    expect(await page.locator("li", { hasText: "Ficus lyrata" }).count()).toBe(0);
    await page.close();
  });
});
