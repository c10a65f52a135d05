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
