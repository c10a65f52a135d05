import { request } from "node:http";
import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { startApp } from "../fixtures/start-app.js";

const token = "shutdown-token";
const secret = generateWebhookSecret();

describe("graceful shutdown", () => {
  it("stops accepting on SIGTERM but finishes the request in flight, then exits 0", async () => {
    const app = await startApp(["--token", token, "--secret", secret, "--db", ":memory:"]);
    const id = "msg_in_flight";
    const at = new Date();
    const body = Buffer.from(JSON.stringify({ id: 42, name: "Half-sent philodendron" }));
    const half = Math.floor(body.length / 2);

    let answered: (value: { status: number; body: string }) => void = () => {};
    const answer = new Promise<{ status: number; body: string }>((resolve) => {
      answered = resolve;
    });
    const req = request(`${app.url}/plant/webhook`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "content-length": String(body.length),
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": new Webhook(secret).sign(id, at, body.toString()),
      },
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on("end", () => answered({ status: res.statusCode ?? 0, body: text }));
    });
    // Send the headers and half the body, so the server is mid-request when the signal comes.
    req.write(body.subarray(0, half));
    await new Promise<void>((resolve) => req.once("socket", (socket) => socket.once("connect", resolve)));
    // A real wait: the app is another process and says nothing when it has read a request's headers,
    // so it is given a moment to; signalled earlier, the socket is idle to it and rightly closed.
    await new Promise((resolve) => setTimeout(resolve, 200));

    app.child.kill("SIGTERM");
    await new Promise<void>((resolve) => {
      const check = () => (app.output().includes('"msg":"stopping"') ? resolve() : setTimeout(check, 20));
      check();
    });
    await expect(fetch(`${app.url}/healthz`)).rejects.toThrow();

    req.end(body.subarray(half));
    expect(await answer).toEqual({ status: 200, body: JSON.stringify({ received: true, duplicate: false }) });
    expect(await app.exited).toBe(0);
    expect(app.output()).toContain('"msg":"plant received"');
  });
});
