import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createDeliveryClient,
  createSsrfGuard,
  newWebhookId,
  signDelivery,
  verifyEndpoint,
} from "@plant-store/sender";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The root README's receivers without the library (issue 37), run exactly as written: each started as
// its own process, sent a real handshake by the sender's `verifyEndpoint`, and an echo server beside
// them, which must not pass.

const README = readFileSync(new URL("../../../../README.md", import.meta.url), "utf8");
const RECEIVER_MODULES = fileURLToPath(new URL("../../node_modules", import.meta.url));
const TOKEN = "readme-receiver-token";

/** The section's code blocks in the given language, as written. */
function snippet(language: string): string {
  const start = README.indexOf("### Answering the handshake without the library");
  const end = README.indexOf("\n## ", start);
  if (start === -1 || end === -1) throw new Error("the README has no section on answering the handshake");
  const blocks = [...README.slice(start, end).matchAll(/```(\w+)\n([\s\S]*?)```/g)]
    .filter((match) => match[1] === language)
    .map((match) => match[2] as string);
  if (blocks.length !== 1) throw new Error(`expected one ${language} block, found ${blocks.length}`);
  return blocks[0] as string;
}

interface Started {
  url: string;
  stop(): Promise<void>;
}

/** Starts a snippet with PORT=0 and waits for its "listening on <port>" line. */
function start(command: string, args: string[], cwd: string, secret: string): Promise<Started> {
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env: { ...process.env, PLANT_TOKEN: TOKEN, PLANT_SECRET: secret, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let stdout = "";
    child.once("exit", (code) =>
      reject(new Error(`${command} exited (${code}) before listening: ${stderr}`)),
    );
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const port = /listening on (\d+)/.exec(stdout)?.[1];
      if (port === undefined) return;
      resolve({
        url: `http://127.0.0.1:${port}/plant/webhook`,
        async stop() {
          child.kill("SIGTERM");
          await exited;
        },
      });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "plant-readme-handshake-"));
// The Express snippet imports `express`: resolved from this package's own node_modules.
symlinkSync(RECEIVER_MODULES, join(dir, "node_modules"), "dir");
writeFileSync(join(dir, "receiver.mjs"), snippet("js"));
writeFileSync(join(dir, "receiver.py"), snippet("python"));

const receivers: Array<[string, string, string[]]> = [
  ["Express (JavaScript)", process.execPath, ["receiver.mjs"]],
  ["Python (standard library)", "python3", ["receiver.py"]],
];

const client = createDeliveryClient();
const ssrfGuard = createSsrfGuard({ allowPrivateTargets: true });
afterAll(() => {
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(receivers)("the README's %s receiver", (_name, command, args) => {
  const secret = generateWebhookSecret();
  let receiver: Started;
  beforeAll(async () => {
    receiver = await start(command, args, dir, secret);
  });
  afterAll(async () => {
    await receiver?.stop();
  });
  const verify = (secrets: string[], token = TOKEN) =>
    verifyEndpoint({ url: receiver.url, token, secrets }, { client, ssrfGuard });

  it("passes the sender's handshake", async () => {
    expect(await verify([secret])).toMatchObject({ verified: true, status: 200 });
  });

  it("passes it mid-rotation, the store signing with a new secret beside the one it holds", async () => {
    expect(await verify([generateWebhookSecret(), secret])).toMatchObject({ verified: true });
  });

  it("refuses a handshake signed with another secret, or carrying another token: 401, not verified", async () => {
    expect(await verify([generateWebhookSecret()])).toMatchObject({
      verified: false,
      reason: "status",
      status: 401,
    });
    expect(await verify([secret], "another-token")).toMatchObject({ verified: false, status: 401 });
  });

  it("acknowledges a New Plant delivery", async () => {
    const body = JSON.stringify({ id: 7, name: "Monstera deliciosa" });
    const headers = signDelivery({ webhookId: newWebhookId(), body, secrets: [secret], token: TOKEN });
    const answered = await fetch(receiver.url, { method: "POST", headers, body });
    expect([answered.status, await answered.json()]).toEqual([200, { received: true }]);
  });
});

describe("a server that echoes its request", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      request.pipe(response.writeHead(200, { "content-type": "application/json" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plant/webhook`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("is not verified, though it answers 200 with the very challenge it was sent", async () => {
    const result = await verifyEndpoint(
      { url, token: TOKEN, secrets: [generateWebhookSecret()] },
      { client, ssrfGuard },
    );
    expect(result).toMatchObject({ verified: false, reason: "invalid-answer", status: 200 });
  });
});
