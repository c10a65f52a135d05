// The receiver library's framework-free verify() on bare node:http (no Koa, no de-duplication):
// how close the checks themselves let a receiver come to the raw baseline.
import { createServer } from "node:http";
import { createVerifier } from "@plant-store/receiver";
import { credentialsFromEnv } from "../bench-credentials.js";
import { markHandled, serveOverIpc } from "../server-kit/serve-over-ipc.js";

const { token, secret } = credentialsFromEnv();
const verify = createVerifier({ tokens: [token], secrets: [secret] });
const ok = Buffer.from('{"received":true,"duplicate":false}');

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const result = verify(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks), req.headers);
    if (!result.ok) {
      res
        .writeHead(result.error.status, { "content-type": "application/json" })
        .end(JSON.stringify(result.error));
      return;
    }
    markHandled();
    res.writeHead(200, { "content-type": "application/json", "content-length": ok.length }).end(ok);
  });
});
serveOverIpc(server);
