import { createServer } from "node:net";

/** A port that was free on 127.0.0.1 a moment ago (the OS picks it). */
export async function getFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("Could not read the listening port"));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

function tryPort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A free loopback port below Linux's ephemeral range (32768 and up): for a test that must listen on a port
 * some time after choosing it. A port from `getFreePort` lies in that range, and any outgoing connection
 * made meanwhile (other tests' HTTP clients) may be given it as its local port (seen: EADDRINUSE).
 */
export async function getFreeFixedPort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await tryPort(port)) return port;
  }
  throw new Error("no free port found between 20000 and 32000");
}
