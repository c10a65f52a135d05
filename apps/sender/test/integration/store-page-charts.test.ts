import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DeliveryStats } from "@plant-store/api";
import { launchChromium } from "@plant-store/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { expectDocumented } from "../fixtures/expect-documented.js";
import { type StoreProcess, startStore } from "../fixtures/store-process.js";

const adminToken = "store-page-charts-admin-token-0123";
const plants = 4;

describe("the store page's last hour charts in headless Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-charts-"));
  let receiver: Server;
  let receiverUrl: string;
  let store: StoreProcess;
  let browser: Browser;

  async function call<T>(path: string, token = adminToken, init: RequestInit = {}) {
    const response = await fetch(`${store.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      },
    });
    return { status: response.status, body: (await response.json()) as T };
  }
  async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
    const answer = await call<T>(path, adminToken, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (answer.status >= 300) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  beforeAll(async () => {
    // /ok answers 200 after a short wait, /down 500 at once: latencies that differ between endpoints,
    // and with one attempt per round (schedule "0") every delivery to /down is one failed attempt.
    receiver = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        if (request.url?.startsWith("/down")) response.writeHead(500).end("down");
        else setTimeout(() => response.writeHead(200).end("{}"), 15);
      });
    });
    receiver.listen(0, "127.0.0.1");
    await new Promise((resolve) => receiver.once("listening", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    store = await startStore(
      ["--db", join(dir, "store.db"), "--allow-private-targets", "--retry-schedule", "0"],
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

  it("draws deliveries per minute, the success rate and each endpoint's p50/p95 as the API answers them, under the CSP", async () => {
    for (const path of ["/ok", "/down"])
      await admin("POST", "/endpoints", { url: `${receiverUrl}${path}`, token: "receiver-token" });
    for (let n = 0; n < plants; n++) await admin("POST", "/plants", { name: `Charted fern ${n}` });
    // A real run: every delivery delivered or failed for good.
    await vi.waitFor(
      async () => {
        const { deliveries } = await admin<{ deliveries: Array<{ status: string }> }>(
          "GET",
          "/deliveries?limit=50",
        );
        expect(deliveries.map((delivery) => delivery.status).sort()).toEqual([
          ...Array(plants).fill("delivered"),
          ...Array(plants).fill("failed"),
        ]);
      },
      { timeout: 15_000, interval: 50 },
    );

    const stats = await call<DeliveryStats>("/delivery-stats?windowMinutes=60");
    expectDocumented("get", "/delivery-stats", stats.status, stats.body);
    expect(stats.body).toMatchObject({
      windowMinutes: 60,
      attempts: 2 * plants,
      succeeded: plants,
      successRate: 0.5,
    });
    expect(stats.body.minutes).toHaveLength(60);
    expect(stats.body.endpoints.map((entry) => entry.attempts)).toEqual([plants, plants]);
    // A subscriber sees its own endpoints' attempts only: none.
    const { token } = await admin<{ token: string }>("POST", "/subscribers", { name: "Chart subscriber" });
    const theirs = await call<DeliveryStats>("/delivery-stats", token);
    expect(theirs.body).toMatchObject({ attempts: 0, successRate: null, endpoints: [] });
    const tooLong = await call("/delivery-stats?windowMinutes=1441");
    expectDocumented("get", "/delivery-stats", tooLong.status, tooLong.body);

    const page = await browser.newPage();
    const refused: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    await page.addInitScript(() => {
      const scope = globalThis as unknown as {
        addEventListener(type: string, listener: (event: { violatedDirective: string }) => void): void;
        cspViolations?: string[];
      };
      scope.cspViolations = [];
      scope.addEventListener("securitypolicyviolation", (event) => {
        scope.cspViolations?.push(event.violatedDirective);
      });
    });
    const { code } = await admin<{ code: string }>("POST", "/login-codes");
    await page.goto(`${store.url}/#code=${code}`);
    const busiest = stats.body.minutes.reduce((a, b) => (b.attempts > a.attempts ? b : a));
    // The page draws what the store answers it: wait for the busiest minute's bar.
    await page.locator(`#per-minute g.minute[data-attempts="${busiest.attempts}"]`).first().waitFor();

    // Its own answer, after the page's: the window may have moved on a minute, never lost an attempt.
    const now = (await call<DeliveryStats>("/delivery-stats?windowMinutes=60")).body;
    expect(now.attempts).toBe(2 * plants);
    const bars = page.locator("#per-minute g.minute");
    expect(await bars.count()).toBe(now.minutes.length);
    const heights = async (start: string) => {
      const bar = page.locator(`#per-minute g.minute[data-start="${start}"]`);
      const height = async (kind: string) => {
        const rect = bar.locator(`rect.bar-${kind}`);
        return (await rect.count()) === 0 ? 0 : Number(await rect.getAttribute("height"));
      };
      return { succeeded: await height("succeeded"), failed: await height("failed") };
    };
    // The busiest minute fills the plot; every bar is in proportion to it.
    const most = Math.max(...now.minutes.map((minute) => minute.attempts));
    const top = now.minutes.find((minute) => minute.attempts === most);
    const full = await heights(top?.start ?? "");
    const unit = (full.succeeded + full.failed) / most;
    expect(unit).toBeGreaterThan(0);
    for (const minute of now.minutes.filter((entry) => entry.attempts > 0)) {
      const drawn = await heights(minute.start);
      expect(drawn.succeeded).toBeCloseTo(minute.succeeded * unit, 6);
      expect(drawn.failed).toBeCloseTo(minute.failed * unit, 6);
    }
    expect(await page.locator("#per-minute rect.bar-succeeded, #per-minute rect.bar-failed").count()).toBe(
      now.minutes.filter((m) => m.succeeded > 0).length + now.minutes.filter((m) => m.failed > 0).length,
    );
    // Each minute with attempts has its success rate drawn, at the height of its rate.
    const withAttempts = now.minutes.filter((minute) => minute.attempts > 0);
    expect(await page.locator("#per-minute circle.rate-point").count()).toBe(withAttempts.length);
    for (const minute of withAttempts)
      expect(
        await page.locator(`#per-minute circle.rate-point[data-start="${minute.start}"] title`).textContent(),
      ).toContain(`${Math.round((minute.succeeded / minute.attempts) * 1000) / 10} % succeeded`);
    expect(await page.locator("#per-minute svg > title").textContent()).toContain(
      `${2 * plants} attempts, ${plants} succeeded, ${plants} failed`,
    );
    expect(await page.locator("#success-rate").textContent()).toContain(
      `50 % (${plants} of ${2 * plants} attempts succeeded, ${plants} failed)`,
    );
    // p50 and p95 per endpoint, as text, equal to the API's.
    expect(await page.locator("#latency tr").count()).toBe(now.endpoints.length);
    for (const entry of now.endpoints) {
      const row = page.locator(`#latency tr[data-latency-endpoint="${entry.endpointId}"]`);
      expect(await row.locator(".p50").textContent()).toBe(`${entry.p50Ms} ms`);
      expect(await row.locator(".p95").textContent()).toBe(`${entry.p95Ms} ms`);
      expect(await row.locator("svg title").textContent()).toContain(`p95 ${entry.p95Ms} ms`);
    }
    // Drawn under the page's own policy: nothing refused.
    const violations = await page.evaluate(
      () => (globalThis as unknown as { cspViolations: string[] }).cspViolations,
    );
    expect(violations).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });
});
