// Baseline: the least a Node receiver can do, read the body and JSON.parse it.
import { createServer } from "node:http";
import { markHandled, serveOverIpc } from "../server-kit/serve-over-ipc.js";

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400).end();
      return;
    }
    markHandled();
    res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
  });
});
serveOverIpc(server);
