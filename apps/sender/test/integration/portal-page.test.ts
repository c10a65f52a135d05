import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeMiddleware } from "@plant-store/receiver";
import { launchChromium } from "@plant-store/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StoreProcess, startStore } from "../fixtures/store-process.js";

const adminToken = "portal-page-admin-token-0123";
// Markup in the two values a subscriber (or whoever names it) chooses: both must arrive as text.
const hostileName = '<img src=x onerror="document.body.dataset.pwned=1">Ann\'s <b>ferns</b>';
// Nothing listens on port 9: whatever the store tries (a handshake, a delivery) fails, and the test
// does not depend on how far verification is wired into `serve`.
const urlA = "http://127.0.0.1:9/ann/hooks?x=<img src=y onerror=document.body.dataset.pwned=2>";
const urlB = "http://127.0.0.1:9/bob/hooks";
const ENDED =
  "Your portal session has ended (it expired, or the store revoked it): ask the store for a new portal link.";
const SPENT = "This portal link was already used, has expired or was revoked: ask the store for a new one.";

/** The page's globals, typed here: this project compiles without the DOM library. */
interface BrowserGlobals {
  document: { body: { textContent: string; dataset: Record<string, string | undefined> } };
  sessionStorage: { getItem(key: string): string | null };
}

interface Endpoint {
  id: number;
  url: string;
  verified: boolean;
}

describe("the subscriber portal in headless Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-portal-"));
  let store: StoreProcess;
  let browser: Browser;
  let a: { id: number; token: string };
  let b: { id: number; token: string };
  let endpointA: Endpoint;
  let endpointB: Endpoint;
  let deliveryB: number;
  // A receiver for the move: it answers the handshake once it knows the secret the store generated.
  let receiver: Server;
  let receiverUrl: string;
  let answer: RequestListener = (request, response) =>
    request.resume().on("end", () => response.writeHead(404).end());

  async function call<T>(credential: string, method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${store.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${credential}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }
  const admin = <T>(method: string, path: string, body?: unknown) => call<T>(adminToken, method, path, body);

  async function addSubscriber(name: string) {
    const added = await admin<{ subscriber: { id: number }; token: string }>("POST", "/subscribers", {
      name,
    });
    return { id: added.subscriber.id, token: added.token };
  }
  async function portalLink(subscriberId: number): Promise<string> {
    const { url } = await admin<{ url: string }>("POST", `/subscribers/${subscriberId}/portal-links`, {});
    return url;
  }
  /** Every text node of the page, hidden ones included, for "is anything of B's on it". */
  const pageText = (page: Page) =>
    page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.body.textContent);
  const pwned = (page: Page) =>
    page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.body.dataset.pwned);
  const stored = (page: Page) =>
    page.evaluate(() =>
      (globalThis as unknown as BrowserGlobals).sessionStorage.getItem("plant-store-portal-credential"),
    );

  beforeAll(async () => {
    store = await startStore(
      ["--db", join(dir, "store.db"), "--allow-private-targets", "--allow-private-targets-for-subscribers"],
      {
        PLANT_STORE_ADMIN_TOKEN: adminToken,
      },
    );
    browser = await launchChromium();
    receiver = createServer((request, response) => answer(request, response));
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    a = await addSubscriber(hostileName);
    b = await addSubscriber("Bob's bonsai");
    // Each subscriber adds its own endpoint with its own token, and sends itself an example: a delivery
    // row exists at once, pending while the endpoint is unverified.
    endpointA = (
      await call<{ endpoint: Endpoint }>(a.token, "POST", "/endpoints", { url: urlA, token: "t-a" })
    ).endpoint;
    endpointB = (
      await call<{ endpoint: Endpoint }>(b.token, "POST", "/endpoints", { url: urlB, token: "t-b" })
    ).endpoint;
    await call(a.token, "POST", `/endpoints/${endpointA.id}/send-example`);
    await call(b.token, "POST", `/endpoints/${endpointB.id}/send-example`);
    const { deliveries } = await call<{ deliveries: Array<{ id: number }> }>(b.token, "GET", "/deliveries");
    deliveryB = (deliveries[0] as { id: number }).id;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await store?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the portal to anyone, holding no data, under a CSP that runs only its own script", async () => {
    const response = await fetch(`${store.url}/portal`);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(html).not.toContain("Bob's bonsai");
    // Without a link there is nothing to show.
    const page = await browser.newPage();
    await page.goto(`${store.url}/portal`);
    await page.locator("#ended", { hasText: "portal link the store gave you" }).waitFor();
    // Nor is a subscriber's own token taken from a link: it outlives any link, in the browser's history.
    await page.goto(`${store.url}/portal#${a.token}`);
    await page.locator("#ended", { hasText: "Links carrying a subscriber token are refused" }).waitFor();
    expect(page.url()).toBe(`${store.url}/portal`);
    expect(await stored(page)).toBeNull();
    await page.close();
  });

  it("opens A's portal from its link: A's name, endpoint and deliveries as text, nothing of B's", async () => {
    const link = await portalLink(a.id);
    expect(link).toMatch(new RegExp(`^${store.url}/portal#psl_`));
    const page = await browser.newPage();
    await page.goto(link);
    await page.locator("#main").waitFor();
    // The link leaves the address bar at once and is spent on a session, which lives in the tab's storage only.
    expect(page.url()).toBe(`${store.url}/portal`);
    expect(await stored(page)).toMatch(/^pps_/);
    // A second use of the same link (another tab, or someone it was forwarded to) is refused.
    const again = await browser.newPage();
    await again.goto(link);
    await again.locator("#ended", { hasText: SPENT }).waitFor();
    expect(await again.locator("#main").isHidden()).toBe(true);
    await again.close();

    expect(await page.locator("#who").textContent()).toBe(hostileName);
    const row = page.locator(`tr[data-endpoint-id="${endpointA.id}"]`);
    await row.waitFor();
    expect(await row.locator(".url").textContent()).toBe(endpointA.url);
    expect(await row.getAttribute("data-verified")).toBe("false");
    expect(await row.locator(".verified").textContent()).toBe("unverified");
    await page.locator("tr[data-delivery-id]").first().waitFor();
    // The markup stayed text: no element made of it, nothing it would run ran.
    expect(await page.locator("#main img, #main b").count()).toBe(0);
    expect(await pwned(page)).toBeUndefined();

    // Only A's objects: one endpoint, its one example delivery; B's URL and delivery nowhere.
    expect(await page.locator("tr[data-endpoint-id]").count()).toBe(1);
    expect(await page.locator("tr[data-delivery-id]").count()).toBe(1);
    expect(await page.locator(`tr[data-delivery-id="${deliveryB}"]`).count()).toBe(0);
    const text = await pageText(page);
    expect(text).not.toContain(urlB);
    expect(text).not.toContain("Bob's bonsai");

    // Its actions, through the page: verify again shows the outcome and why; an example adds a delivery.
    await row.locator('button[data-action="verify"]').click();
    await page.locator("#notice", { hasText: `Endpoint ${endpointA.id} is` }).waitFor();
    const verification = await call<{ verification: { verified: boolean; reason?: string } }>(
      a.token,
      "POST",
      `/endpoints/${endpointA.id}/verify`,
    );
    expect(verification.verification.verified).toBe(false);
    expect(await page.locator("#notice").textContent()).toContain(verification.verification.reason);
    await row.locator('button[data-action="send-example"]').click();
    await page.locator("tr[data-delivery-id]").nth(1).waitFor();
    await row.locator('button[data-action="disable"]').click();
    await page.locator(`tr[data-endpoint-id="${endpointA.id}"][data-status="disabled"]`).waitFor();
    await row.locator('button[data-action="enable"]').click();
    await page.locator(`tr[data-endpoint-id="${endpointA.id}"][data-status="active"]`).waitFor();
    await row.locator('button[data-action="rotate"]').click();
    await page.locator("#notice", { hasText: "The new one, shown once: whsec_" }).waitFor();

    // An endpoint added from the form: its generated secret shown once, and the handshake's outcome.
    await page.fill("#add-url", "http://127.0.0.1:9/ann/second");
    await page.fill("#add-token", "t-a2");
    await page.click("#add-button");
    // Waited for by what only this answer says: the rotation's notice before it also shows a whsec_.
    const added = page.locator("#notice", { hasText: "not verified" });
    await added.waitFor();
    expect(await added.textContent()).toContain("whsec_");
    await page.locator("tr[data-endpoint-id]").nth(1).waitFor();
    const mine = await call<{ endpoints: Endpoint[] }>(a.token, "GET", "/endpoints");
    const second = mine.endpoints.find((endpoint) => endpoint.url === "http://127.0.0.1:9/ann/second");
    expect(second).toBeDefined();
    // Removed in two clicks.
    const secondRow = page.locator(`tr[data-endpoint-id="${second?.id}"]`);
    await secondRow.locator('button[data-action="remove"]').click();
    await secondRow.locator('button[data-action="confirm-remove"]').click();
    await secondRow.waitFor({ state: "detached" });

    // B's objects are as they were.
    const ofB = await call<{ endpoints: Endpoint[] }>(b.token, "GET", "/endpoints");
    expect(ofB.endpoints.map((endpoint) => endpoint.url)).toEqual([urlB]);
    expect(await pwned(page)).toBeUndefined();
    await page.close();
  });

  it("moves an endpoint to another URL: unverified there until the handshake, a refused URL changes nothing", async () => {
    const added = await call<{ endpoint: Endpoint; secret: string }>(a.token, "POST", "/endpoints", {
      url: `${receiverUrl}/plant/webhook?ann=old`,
      token: "t-a3",
    });
    const id = added.endpoint.id;
    // The secret exists only once the endpoint does: the receiver learns it now and passes the handshake.
    const middleware = createNodeMiddleware({
      tokens: ["t-a3"],
      secrets: [added.secret],
      onNewPlant: () => {},
    });
    answer = (request, response) => void middleware(request, response);
    const first = await call<{ verification: { verified: boolean } }>(
      a.token,
      "POST",
      `/endpoints/${id}/verify`,
    );
    expect(first.verification.verified).toBe(true);
    const stored = async () =>
      (await call<{ endpoint: Endpoint }>(a.token, "GET", `/endpoints/${id}`)).endpoint;

    const page = await browser.newPage();
    await page.goto(await portalLink(a.id));
    const row = page.locator(`tr[data-endpoint-id="${id}"]`);
    await page.locator(`tr[data-endpoint-id="${id}"][data-verified="true"]`).waitFor();
    await row.locator('button[data-action="move"]').click();
    expect(await page.inputValue("#move-endpoint")).toBe(String(id));
    expect(await page.inputValue("#move-url")).toBe(`${receiverUrl}/plant/webhook?ann=old`);
    // The same receiver, another URL: what the store checks is the URL it is given.
    const moved = `${receiverUrl}/plant/webhook?ann=new`;
    await page.fill("#move-url", moved);
    await page.click("#move-button");
    await page.locator(`tr[data-endpoint-id="${id}"][data-verified="false"]`).waitFor();
    expect(await row.locator(".url").textContent()).toBe(moved);
    expect(await row.locator(".verified").textContent()).toBe("unverified");
    const notice = page.locator("#notice", {
      hasText: `Endpoint ${id} moved to ${moved}. It is unverified now`,
    });
    await notice.waitFor();
    expect(await stored()).toMatchObject({ url: moved, verified: false });
    // The notice offers the handshake: the receiver answers on the new URL, and the endpoint is verified.
    await notice.locator('button[data-action="verify-moved"]').click();
    await page.locator("#notice", { hasText: `Endpoint ${id} is verified: it receives webhooks.` }).waitFor();
    await page.locator(`tr[data-endpoint-id="${id}"][data-verified="true"]`).waitFor();
    expect(await stored()).toMatchObject({ url: moved, verified: true });

    // A refused URL: the store's own message on the page, and the endpoint as it was (still verified).
    const refused = "ftp://x";
    const refusal = await fetch(`${store.url}/endpoints/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
      body: JSON.stringify({ url: refused }),
    });
    expect(refusal.status).toBe(400);
    const { message } = (await refusal.json()) as { message: string };
    expect(message).toMatch(/^Invalid endpoint update: url: /);
    await page.fill("#move-url", refused);
    await page.click("#move-button");
    await page.locator("#notice", { hasText: `Failed: ${message}` }).waitFor();
    expect(await stored()).toMatchObject({ url: moved, verified: true });
    expect(await row.locator(".url").textContent()).toBe(moved);
    await page.close();
  });

  it("refuses an altered link with the spent message, and asks nothing more", async () => {
    const link = await portalLink(a.id);
    const last = link.at(-1) === "A" ? "B" : "A";
    const altered = `${link.slice(0, -1)}${last}`;
    const page = await browser.newPage();
    const asked: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "fetch") asked.push(new URL(request.url()).pathname);
    });
    await page.goto(altered);
    await page.locator("#ended", { hasText: SPENT }).waitFor();
    expect(await page.locator("#main").isHidden()).toBe(true);
    expect(await stored(page)).toBeNull();
    // No polling after the refusal: the one question was the exchange.
    expect(asked).toEqual(["/portal-sessions"]);
    await page.close();
  });

  it("signs out with its button, ending the session in the store, and ends an open portal the store revokes", async () => {
    const page = await browser.newPage();
    await page.goto(await portalLink(a.id));
    await page.locator("#main").waitFor();
    const session = (await stored(page)) as string;
    expect(await call<{ kind: string }>(session, "GET", "/me")).toMatchObject({ kind: "subscriber" });
    await page.click("#sign-out");
    await page.locator("#ended", { hasText: "You signed out" }).waitFor();
    expect(await page.locator("#main").isHidden()).toBe(true);
    expect(await stored(page)).toBeNull();
    const refused = await fetch(`${store.url}/me`, { headers: { authorization: `Bearer ${session}` } });
    expect(refused.status).toBe(401);
    await page.close();

    // An open portal whose links the operator revokes: its next poll is refused, and it says so.
    const open = await browser.newPage();
    await open.goto(await portalLink(a.id));
    await open.locator("#main").waitFor();
    await admin("DELETE", `/subscribers/${a.id}/portal-links`);
    await open.locator("#ended", { hasText: ENDED }).waitFor();
    expect(await open.locator("#main").isHidden()).toBe(true);
    await open.close();

    // The API's own links: a minute at least, and the default an hour.
    const short = await admin<{ expiresAt: string }>("POST", `/subscribers/${a.id}/portal-links`, {
      expiresInSeconds: 60,
    });
    expect(Date.parse(short.expiresAt) - Date.now()).toBeLessThanOrEqual(60_000);
    const tooShort = await fetch(`${store.url}/subscribers/${a.id}/portal-links`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ expiresInSeconds: 1 }),
    });
    expect(tooShort.status).toBe(400);
  }, 30_000);
});
