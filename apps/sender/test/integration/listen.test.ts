import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeMiddleware } from "@plant-store/receiver";
import { waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ListenProcess, startListen } from "../fixtures/listen-process.js";
import { runCli, type StoreProcess, startStore } from "../fixtures/store-process.js";

// `plant-store listen` with a store and a receiver as they run on a developer's machine: the store is
// a process that refuses private targets (no --allow-private-targets) and was never told about the
// receiver, which listens on another port of this host.
const adminToken = "admin-token-for-listen-0123";
const token = "local-receiver-token";
const secret = generateWebhookSecret();
const dir = mkdtempSync(join(tmpdir(), "plant-store-listen-"));
const db = join(dir, "store.db");

interface Endpoint {
  id: number;
  url: string;
}
interface Delivery {
  id: number;
  endpointId: number;
  status: string;
  webhookId: string;
}
interface Attempt {
  attempt: number;
  status: number | null;
  responseBody: string;
  outcome: string;
}

let store: StoreProcess;
let receiver: Server;
let receiverUrl: string;
/** Plants the local receiver's handler ran for, in order; "Flaky fern" fails its first time. */
const handled: Array<{ id: number; name: string; webhookId: string }> = [];
let flaked = false;

async function admin<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${store.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as T };
}

const endpoints = async () => (await admin<{ endpoints: Endpoint[] }>("GET", "/endpoints")).body.endpoints;

function listen(): ListenProcess {
  return startListen(
    ["--forward-to", receiverUrl, "--store", store.url, "--token", token, "--secret", secret],
    { PLANT_STORE_ADMIN_TOKEN: adminToken },
  );
}

beforeAll(async () => {
  receiver = createServer(
    createNodeMiddleware({
      tokens: [token],
      secrets: [secret],
      onNewPlant: (plant, delivery) => {
        if (plant.name === "Flaky fern" && !flaked) {
          flaked = true;
          throw new Error("the first try of the flaky fern fails");
        }
        handled.push({ id: plant.id, name: plant.name, webhookId: delivery.webhookId });
      },
    }),
  );
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/plant/webhook`;
  store = await startStore(["--db", db, "--retry-schedule", "0,100ms,100ms"], {
    PLANT_STORE_ADMIN_TOKEN: adminToken,
  });
});

afterAll(async () => {
  await store?.kill();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe("plant-store listen", () => {
  it("forwards New Plant deliveries to a local receiver the store never knew; the store's deliveries show them delivered with its answers; the endpoint goes when the CLI stops", async () => {
    expect(await endpoints()).toStrictEqual([]);
    const cli = listen();
    const ready = await cli.next((e) => e.event === "listen.ready");
    const endpointId = ready.endpointId as number;
    // The store knows a relay URL on its own admin port, never the receiver's.
    const known = await endpoints();
    expect(known.map((e) => e.url)).toStrictEqual([`${store.url}/relay/${ready.session}`]);
    expect(JSON.stringify(known)).not.toContain(receiverUrl);
    // The credentials were given, so none was generated and printed.
    expect(ready).not.toHaveProperty("token");
    expect(ready).not.toHaveProperty("secret");

    const added = [];
    for (const name of ["Monstera deliciosa", "Flaky fern"])
      added.push(
        (await admin<{ plant: { id: number; webhookId: string } }>("POST", "/plants", { name })).body.plant,
      );

    const delivered = await waitFor(async () => {
      const { deliveries } = (
        await admin<{ deliveries: Delivery[] }>("GET", `/deliveries?endpointId=${endpointId}`)
      ).body;
      return deliveries.length === 2 && deliveries.every((d) => d.status === "delivered")
        ? deliveries
        : undefined;
    }, 20_000);
    expect(delivered.map((d) => d.webhookId).sort()).toStrictEqual(added.map((p) => p.webhookId).sort());

    const attemptsOf = async (webhookId: string) => {
      const delivery = delivered.find((d) => d.webhookId === webhookId) as Delivery;
      return (await admin<{ attempts: Attempt[] }>("GET", `/deliveries/${delivery.id}`)).body.attempts.map(
        (a) => [a.attempt, a.status, a.responseBody, a.outcome],
      );
    };
    // The local receiver's own answers, in the store's attempt log: its 500 and the retry's 200.
    expect(await attemptsOf(added[0]?.webhookId as string)).toStrictEqual([
      [1, 200, '{"received":true,"duplicate":false}', "delivered"],
    ]);
    expect(await attemptsOf(added[1]?.webhookId as string)).toStrictEqual([
      [1, 500, '{"error":500,"message":"Internal error"}', "retrying"],
      [2, 200, '{"received":true,"duplicate":false}', "delivered"],
    ]);
    // Verified with the receiver's own token and secret and handled once each.
    expect(handled).toStrictEqual(
      added.map((plant, index) => ({
        id: plant.id,
        name: ["Monstera deliciosa", "Flaky fern"][index],
        webhookId: plant.webhookId,
      })),
    );
    // Printed as they happened: each delivery, then its answer (two deliveries may be in flight at once).
    const printed = (webhookId: string | undefined) =>
      cli.events.filter((e) => e.webhookId === webhookId).map((e) => [e.event, e.status]);
    expect(printed(added[0]?.webhookId)).toStrictEqual([
      ["listen.delivery", undefined],
      ["listen.answer", 200],
    ]);
    expect(printed(added[1]?.webhookId)).toStrictEqual([
      ["listen.delivery", undefined],
      ["listen.answer", 500],
      ["listen.delivery", undefined],
      ["listen.answer", 200],
    ]);

    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(0);
    expect(cli.events.at(-1)).toStrictEqual({ event: "listen.stopped" });
    // Gone when the CLI has exited, with its deliveries.
    expect(await endpoints()).toStrictEqual([]);
    expect(
      (await admin<{ deliveries: Delivery[] }>("GET", `/deliveries?endpointId=${endpointId}`)).body
        .deliveries,
    ).toStrictEqual([]);
  });

  it("removes the endpoint when the CLI dies without a word (SIGKILL), and when the store died, at its next start", async () => {
    const killed = listen();
    await killed.next((e) => e.event === "listen.ready");
    killed.child.kill("SIGKILL");
    await killed.exited;
    await waitFor(async () => ((await endpoints()).length === 0 ? true : undefined), 10_000);

    const orphaned = listen();
    const ready = await orphaned.next((e) => e.event === "listen.ready");
    await store.kill();
    // The CLI sees its store go and says so.
    expect(await orphaned.exited).toBe(1);
    expect(orphaned.stderr()).toMatch(/ended the listen session|Lost the connection to the store/);
    store = await startStore(["--db", db], { PLANT_STORE_ADMIN_TOKEN: adminToken });
    expect((await endpoints()).map((e) => e.id)).not.toContain(ready.endpointId);
    expect(
      store.lines.some((line) => line.msg === "removed listen endpoints left by a store that stopped"),
    ).toBe(true);
  });

  it("prints the token and secret the store generated when none is given, and refuses a wrong admin token", async () => {
    const refused = startListen(["--forward-to", receiverUrl, "--store", store.url], {
      PLANT_STORE_ADMIN_TOKEN: "not-the-admin-token-0123",
    });
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toMatch(/The store refused to open a listen session: 401/);

    const generated = startListen(["--forward-to", receiverUrl, "--store", store.url], {
      PLANT_STORE_ADMIN_TOKEN: adminToken,
    });
    const ready = await generated.next((e) => e.event === "listen.ready");
    expect(ready.token).toMatch(/^lst_token_/);
    expect(ready.secret).toMatch(/^whsec_/);
    generated.child.kill("SIGTERM");
    expect(await generated.exited).toBe(0);
    expect(await endpoints()).toStrictEqual([]);
  });

  it("refuses unusable settings all at once with exit 2, naming each flag and variable, never a value", async () => {
    const { code, stdout, stderr } = await runCli(
      ["listen", "--store", "ftp://store.example", "--token", "has space", "--secret", "whsec_c2hvcnQ="],
      { PLANT_STORE_ADMIN_TOKEN: "" },
    );
    expect({ code, stdout }).toStrictEqual({ code: 2, stdout: "" });
    expect(stderr.trim().split("\n")).toStrictEqual([
      "Invalid configuration:",
      "  --forward-to (PLANT_STORE_FORWARD_TO): must be an http:// or https:// URL",
      "  --store (PLANT_STORE_URL): Invalid URL",
      "  --admin-token (PLANT_STORE_ADMIN_TOKEN): is required",
      "  --token (PLANT_STORE_LISTEN_TOKEN): must be visible ASCII (0x21-0x7e): no spaces, control or non-ASCII characters",
      "  --secret (PLANT_STORE_LISTEN_SECRETS) (value 1): Expected whsec_ followed by base64 of at least 16 bytes, or a whsk_ ed25519 signing key",
    ]);
    expect(stderr).not.toContain("c2hvcnQ");
  });
});
