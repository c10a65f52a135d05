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
