import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createNodeMiddleware, createWebhookReceiver, type PlantWebhookOutcome } from "@plant-store/receiver";
import { getFreeFixedPort, launchChromium, waitFor } from "@plant-store/testing";
import { createWebhookCatalog } from "@plant-store/types";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Framework,
  frameworks,
  installEmbeddingProject,
  nonEmptyLines,
  readmeMount,
  serverSource,
} from "./fixtures/embedded-api-project.js";
import { typeCheckConsumer } from "./fixtures/expect-consumer-project.js";
import { packedTarballs } from "./fixtures/packed-tarballs.js";
import { workspaceRoot } from "./fixtures/published-packages.js";

// Issue 38, from outside: @plant-store/api from the tarballs in a fresh Express project and a fresh Hono
// project (plain npm, outside the workspace), each serving the README's own mount. The operator makes a
// subscriber and its portal link; in Chromium the subscriber adds an endpoint, its receiver passes the
// handshake, and a message the team sends shows in the portal as delivered, with its attempt.

/** What the tests learned of each project while it was installed and compiled. */
interface Project {
  dir: string;
  mount: string;
  /** What tsc printed: "" when the server compiled cleanly. */
  tsc: string;
}

let scratch: string;
let browser: Browser | undefined;
/** Chromium, launched while the projects install (awaited before afterAll closes it, whatever failed). */
let launched: Promise<unknown> | undefined;
const projects = new Map<Framework["name"], Project>();

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "plant-store-embedded-api-"));
  expect(scratch.startsWith(workspaceRoot)).toBe(false);
  launched = launchChromium().then((started) => {
    browser = started;
  });
  const tarballs = await packedTarballs();
  // Both installs and compilations at once: each waits on npm, the registry and the disk more than it
  // computes. Both are awaited before any failure is thrown, so that the scratch folder is never
  // removed under an install still running.
  const settled = await Promise.allSettled(
    frameworks.map(async (framework) => {
      const dir = join(scratch, framework.name);
      await installEmbeddingProject(dir, framework, tarballs);
      const mount = await readmeMount(dir, framework);
      await writeFile(join(dir, "src", "server.ts"), serverSource(mount));
      projects.set(framework.name, { dir, mount, tsc: await typeCheckConsumer(dir) });
    }),
  );
  for (const result of settled) if (result.status === "rejected") throw result.reason;
  await launched;
}, 300_000);

afterAll(async () => {
  await launched?.catch(() => undefined);
  await browser?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The team's server, started as the team starts it: `node dist/server.js` with $PORT. */
async function startServer(project: Project) {
  const port = await getFreeFixedPort();
  const child: ChildProcess = spawn(process.execPath, [join(project.dir, "dist", "server.js")], {
    cwd: project.dir,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const exited = once(child, "exit");
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${output}`);
    const answer = await fetch(`${base}/webhooks/portal`).catch(() => undefined);
    return answer?.status === 200 ? true : undefined;
  });
  return {
    base,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The processes `pid` started, and theirs. */
function descendants(pid: number): number[] {
  let listed = "";
  try {
    listed = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" });
  } catch {
    // ps exits 1 when there is none.
  }
  const children = listed.split(/\s+/).filter(Boolean).map(Number);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/**
 * Ctrl-C for a command run with npx: in a terminal the signal reaches every process of the command, but
 * npx passes none on to what it runs, so the command itself (the processes that started none) is signalled.
 */
function stopGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  const all = descendants(child.pid as number);
  const leaves = all.filter((pid) => descendants(pid).length === 0);
  for (const pid of leaves.length > 0 ? leaves : [child.pid as number])
    try {
      process.kill(pid, signal);
    } catch {
      // Ended already.
    }
}

/** The subscriber's own receiver: a 404 until it is given the endpoint's secret, then @plant-store/receiver. */
async function startSubscriberReceiver(token: string) {
  const catalog = createWebhookCatalog<{ "order.created": { id: number } }>({
    webhooks: {
      "order.created": {
        post: {
          requestBody: {
            content: {
              "application/json": {
                schema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
              },
            },
          },
        },
      },
    },
  });
  const orders: Array<{ id: number; webhookId: string }> = [];
  const outcomes: PlantWebhookOutcome[] = [];
  let listener: RequestListener = (request, response) =>
    request.resume().on("end", () => response.writeHead(404).end());
  const server: Server = createServer((request, response) => listener(request, response));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/orders`,
    orders,
    outcomes,
    /** The subscriber deploys its receiver with the secret the portal showed it. */
    deploy(secret: string) {
      const receiver = createWebhookReceiver({
        catalog,
        tokens: [token],
        secrets: [secret],
        sharedPath: "/hooks/orders",
        handlers: {
          "order.created": (order, { webhookId }) => {
            orders.push({ id: order.id, webhookId });
          },
        },
      });
      const middleware = createNodeMiddleware(receiver, { onOutcome: (outcome) => outcomes.push(outcome) });
      listener = (request, response) => void middleware(request, response);
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.each(frameworks)("@plant-store/api embedded in a fresh $name project", (framework) => {
  const project = () => projects.get(framework.name) as Project;

  it("mounts the API and the portal in at most 15 lines (the README's block), and compiles with strict tsc", () => {
    const { mount, tsc } = project();
    expect(nonEmptyLines(mount).length).toBeLessThanOrEqual(15);
    // The team's own SQLite outbox, the portal turned on, the port its platform gives it.
    expect(mount).toContain('createSqliteOutbox("webhooks.db")');
    expect(mount).toContain("portalSecret:");
    expect(mount).toContain("process.env.PORT");
    expect(tsc).toBe("");
  });

  it("operator: subscriber and portal link; subscriber in Chromium: endpoint, handshake, the team's message delivered with its attempt", async () => {
    const { mount } = project();
    const operatorToken = /operatorTokens: \["([^"]+)"\]/.exec(mount)?.[1] as string;
    expect(operatorToken).toBeDefined();
    const endpointToken = `receiver-token-${framework.name}`;
    const server = await startServer(project());
    const receiver = await startSubscriberReceiver(endpointToken);
    const page = await (browser as Browser).newPage();
    const call = async (method: string, path: string, body?: unknown) => {
      const answer = await fetch(`${server.base}/webhooks${path}`, {
        method,
        headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
    };
    try {
      const added = await call("POST", "/subscribers", { name: `Acme Orders (${framework.name})` });
      expect(added.status).toBe(201);
      const subscriberId = (added.body.subscriber as { id: number }).id;
      const link = await call("POST", `/subscribers/${subscriberId}/portal-links`, {});
      expect(link.status).toBe(201);
      const url = link.body.url as string;
      expect(url).toMatch(new RegExp(`^${server.base}/webhooks/portal#psl_[A-Za-z0-9_-]+$`));

      // The subscriber opens its link: signed in, the link gone from the address bar.
      await page.goto(url);
      await page.locator("#main").waitFor();
      expect(page.url()).toBe(`${server.base}/webhooks/portal`);
      expect(await page.locator("#who").textContent()).toBe(`Acme Orders (${framework.name})`);

      // It adds its endpoint; the store generates the secret and shows it once. Its receiver does not
      // know it yet, so the first handshake fails.
      await page.fill("#add-url", receiver.url);
      await page.fill("#add-token", endpointToken);
      await page.click("#add-button");
      const notice = page.locator("#notice", { hasText: "Its signing secret, shown once" });
      await notice.waitFor();
      const shown = (await notice.textContent()) ?? "";
      expect(shown).toContain("is not verified");
      const secret = /whsec_[A-Za-z0-9+/]+=*/.exec(shown)?.[0] as string;
      expect(secret).toBeDefined();
      const row = page.locator("tr[data-endpoint-id]");
      await row.waitFor();
      const endpointId = await row.getAttribute("data-endpoint-id");
      expect(await row.getAttribute("data-verified")).toBe("false");

      // It deploys its receiver with that secret and asks for the handshake again: it passes.
      receiver.deploy(secret);
      await row.locator('button[data-action="verify"]').click();
      await page
        .locator("#notice", { hasText: `Endpoint ${endpointId} is verified: it receives webhooks.` })
        .waitFor();
      await page.locator(`tr[data-endpoint-id="${endpointId}"][data-verified="true"]`).waitFor();
      expect(receiver.outcomes).toEqual([expect.objectContaining({ outcome: "verification" })]);

      // The team sends a message: the subscriber's receiver gets it once, and the portal shows it delivered.
      const sent = await call("POST", "/messages", { eventType: "order.created", payload: { id: 42 } });
      expect(sent.status).toBe(202);
      expect(sent.body.queued).toBe(1);
      const webhookId = (sent.body.message as { webhookId: string }).webhookId;
      await expect.poll(() => receiver.orders, { timeout: 15_000 }).toEqual([{ id: 42, webhookId }]);
      const delivery = page.locator('tr[data-delivery-id][data-status="delivered"]');
      await delivery.waitFor();
      expect(await page.locator("tr[data-delivery-id]").count()).toBe(1);
      expect(await delivery.locator("td.wrap").first().textContent()).toBe(webhookId);
      expect(await delivery.locator("td.event-type").textContent()).toBe("order.created");
      const deliveryId = await delivery.getAttribute("data-delivery-id");

      // Its attempt: one, answered 200 by the receiver, delivered.
      await delivery.locator('button[data-action="attempts"]').click();
      const attempt = page.locator(`tr[data-details-for="${deliveryId}"] tr.attempt`);
      await attempt.first().waitFor();
      expect(await attempt.count()).toBe(1);
      expect(await attempt.getAttribute("data-attempt")).toBe("1");
      expect(await attempt.getAttribute("data-status")).toBe("200");
      expect(await attempt.locator("td").nth(4).textContent()).toBe("delivered");
      expect(receiver.outcomes.map((outcome) => outcome.outcome)).toEqual(["verification", "received"]);
      expect(server.output()).toBe("");
    } finally {
      await page.close();
      await server.stop();
      await receiver.close();
    }
  });

  it("npx plant-webhooks listen forwards a delivery of the embedded service to a local receiver, and its answer is in the attempt log", {
    timeout: 180_000,
  }, async () => {
    const { mount, dir } = project();
    const operatorToken = /operatorTokens: \["([^"]+)"\]/.exec(mount)?.[1] as string;
    const server = await startServer(project());
    // The developer's receiver on its own machine: the API never connects to it, the CLI does.
    const received: Array<{ path: string; webhookId: string | undefined; body: string }> = [];
    const local = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      request.on("end", () => {
        received.push({ path: request.url ?? "", webhookId: request.headers["webhook-id"] as string, body });
        response.writeHead(200, { "content-type": "application/json" }).end('{"handled":true}');
      });
    });
    local.listen(0, "127.0.0.1");
    await once(local, "listening");
    const forwardTo = `http://127.0.0.1:${(local.address() as AddressInfo).port}/local/hook`;
    const cli = spawn(
      "npx",
      ["plant-webhooks", "listen", "--api", `${server.base}/webhooks`, "--forward-to", forwardTo, "--json"],
      {
        cwd: dir,
        // As from the developer's shell: not the npm_config_* settings pnpm passes to the tests it runs,
        // which npm would warn about.
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_/i.test(name))),
          PLANT_WEBHOOKS_TOKEN: operatorToken,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const lines: Array<Record<string, unknown>> = [];
    let errors = "";
    createInterface({ input: cli.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    cli.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      errors += chunk;
    });
    const exited = once(cli, "exit");
    const call = async (method: string, path: string, body?: unknown) => {
      const answer = await fetch(`${server.base}/webhooks${path}`, {
        method,
        headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await answer.json()) as Record<string, unknown>;
    };
    try {
      const ready = await waitFor(async () => {
        if (cli.exitCode !== null) throw new Error(`listen exited (${cli.exitCode}): ${errors}`);
        return lines.find((line) => line.event === "listen.ready");
      }, 30_000).catch((error: Error) => {
        throw new Error(`${error.message}; listen printed ${JSON.stringify(lines)} and ${errors}`);
      });
      const endpointId = ready.endpointId as number;
      const sent = await call("POST", "/messages", { eventType: "order.created", payload: { id: 7 } });
      const webhookId = (sent.message as { webhookId: string }).webhookId;
      // One JSON line for the delivery: its webhook id, event type and the local answer's status.
      const forwarded = await waitFor(
        async () => lines.find((line) => line.event === "listen.delivery" && line.webhookId === webhookId),
        30_000,
      ).catch((error: Error) => {
        throw new Error(
          `${error.message}; listen printed ${JSON.stringify(lines)} and ${errors}; the server ${server.output()}`,
        );
      });
      expect(forwarded).toMatchObject({ eventType: "order.created", status: 200 });
      // The project's database still holds the portal test's subscriber endpoint, subscribed to
      // order.created too, whose receiver has closed: when this receiver is given that freed port, the
      // worker's delivery to it lands here as well (under its own path). What listen forwarded is what
      // reached the local hook, once.
      expect(received.filter((request) => request.path === "/local/hook")).toEqual([
        { path: "/local/hook", webhookId, body: '{"id":7}' },
      ]);
      // The worker of the embedded service recorded the local receiver's answer as the attempt's.
      const delivery = await waitFor(async () => {
        const listed = (await call("GET", `/deliveries?endpointId=${endpointId}`)) as {
          deliveries: Array<{ id: number; webhookId: string; status: string }>;
        };
        return listed.deliveries.find((d) => d.webhookId === webhookId && d.status === "delivered");
      }, 30_000);
      const details = (await call("GET", `/deliveries/${delivery.id}`)) as {
        attempts: Array<{ status: number; responseBody: string; outcome: string }>;
      };
      expect(details.attempts).toEqual([
        expect.objectContaining({ status: 200, responseBody: '{"handled":true}', outcome: "delivered" }),
      ]);
      stopGroup(cli, "SIGINT");
      const [code] = await exited;
      expect(code).toBe(0);
      expect(errors).toBe("");
      // The temporary endpoint goes with the session.
      const endpoints = (await call("GET", "/endpoints")) as { endpoints: Array<{ id: number }> };
      expect(endpoints.endpoints.map((endpoint) => endpoint.id)).not.toContain(endpointId);
      expect(server.output()).toBe("");
    } finally {
      if (cli.exitCode === null) stopGroup(cli, "SIGKILL");
      await server.stop();
      await new Promise((resolve) => local.close(resolve));
    }
  });
});
