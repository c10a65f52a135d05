import { connect } from "node:net";
import { setImmediate as nextTurn } from "node:timers/promises";
import { generateWebhookSecret } from "@plant-store/types";
import { afterEach, describe, expect, it } from "vitest";
import { IN_PROCESS_READ_TOKEN, type InProcessApp, startInProcess } from "../fixtures/start-in-process.js";

const config = { tokens: ["events-token"], secrets: [generateWebhookSecret()] };

describe("GET /events", () => {
  let app: InProcessApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("answers 503 with Connection: close once the events are closed for shutdown", async () => {
    app = await startInProcess(config);
    app.events.close();
    const response = await fetch(`${app.url}/events`, {
      headers: { authorization: `Bearer ${IN_PROCESS_READ_TOKEN}` },
    });
    expect(response.status).toBe(503);
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.json()).toEqual({ error: 503, message: "Shutting down" });
    expect(app.events.size).toBe(0);
  });

  it("drops the stream and closes the connection of a client that stops reading", async () => {
    app = await startInProcess(config, { maxBufferedBytes: 256 * 1024 });
    const { port } = new URL(app.url);
    const socket = connect({ host: "127.0.0.1", port: Number(port) });
    socket.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write(
      `GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${IN_PROCESS_READ_TOKEN}\r\n\r\n`,
    );
    // Read the stream's start, then never again.
    await new Promise<void>((resolve) => socket.once("data", () => resolve()));
    socket.pause();
    expect(app.events.size).toBe(1);
    const name = "x".repeat(512 * 1024);
    // Enough to fill both kernel socket buffers and then the stream's own; bounded, so that a stream
    // that is never dropped fails the test instead of eating memory.
    for (let i = 0; i < 400 && app.events.size > 0; i++) {
      app.events.publish({
        webhookId: `msg_${i}`,
        id: i,
        name,
        receivedAt: new Date().toISOString(),
      });
      await nextTurn();
    }
    expect(app.events.size).toBe(0);
    // Reading again, the client finds the connection closed (a paused socket cannot notice).
    socket.resume();
    await closed;
  });
});
