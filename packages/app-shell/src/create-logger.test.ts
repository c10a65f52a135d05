import { spawn } from "node:child_process";
import { once } from "node:events";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./create-logger.js";
import { logPoolError } from "./log-pool-error.js";

function capture() {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
  return {
    stream,
    lines: () =>
      chunks
        .join("")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
  };
}

describe("createLogger", () => {
  it("writes JSON lines with the app's name and redacts tokens, secrets and signatures wherever they are", () => {
    const out = capture();
    const logger = createLogger({ name: "plant-test", destination: out.stream });
    logger.info(
      {
        token: "t0ken",
        adminToken: "admin-t0ken",
        endpoint: { secrets: ["whsec_x"], token: "t1" },
        req: { headers: { authorization: "Bearer t2", "webhook-signature": "v1,sig" } },
      },
      "hello",
    );
    const [line] = out.lines();
    expect(line).toMatchObject({ name: "plant-test", msg: "hello", token: "[redacted]" });
    expect(JSON.stringify(line)).not.toMatch(/t0ken|whsec_x|t1|t2|v1,sig/);
  });

  it("logs a lost PostgreSQL connection with its code and message only", () => {
    const out = capture();
    const logger = createLogger({ name: "plant-test", destination: out.stream });
    const error = Object.assign(new Error("terminating connection"), {
      code: "57P01",
      client: { connectionParameters: { password: "pg-password" } },
    });
    logPoolError(logger)(error);
    const [line] = out.lines();
    expect(line).toMatchObject({
      level: 40,
      msg: "database connection lost",
      err: { code: "57P01", message: "terminating connection" },
    });
    expect(JSON.stringify(line)).not.toContain("pg-password");
  });
});

describe("createLogger on stdout", () => {
  // `stopOnSignals` logs "stopped" and exits at once: a line still being written by the thread pool when
  // the process exits is lost (pino's default stdout stream writes asynchronously, and its flush at exit
  // skips the write in flight), so an operator saw "stopping" as the last line of a clean stop.
  // A process of its own (the built package: `test` runs after `build`), as the apps run it.
  it("has written every line when the process exits right after logging it", async () => {
    const script = `
      const { createLogger } = await import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)});
      const logger = createLogger({ name: "plant-test" });
      logger.info({}, "stopping");
      logger.info({}, "stopped");
      process.exit(0);
    `;
    const runs = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
        });
        await once(child, "close");
        return out
          .trim()
          .split("\n")
          .map((line) => (JSON.parse(line) as { msg: string }).msg);
      }),
    );
    for (const lines of runs) expect(lines).toEqual(["stopping", "stopped"]);
  });
});
