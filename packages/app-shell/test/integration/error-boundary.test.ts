import type { AddressInfo } from "node:net";
import { Router } from "@koa/router";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createErrorBoundary } from "../../src/create-error-boundary.js";
import { HttpError } from "../../src/http-error.js";
import { mountRouter } from "../../src/mount-router.js";

const logged: { level: string; message: string; object: object }[] = [];
const logger = {
  warn: (object: object, message: string) => logged.push({ level: "warn", message, object }),
  error: (object: object, message: string) => logged.push({ level: "error", message, object }),
};

let server: ReturnType<Koa["listen"]>;
let base: string;

beforeAll(async () => {
  const app = new Koa();
  app.silent = true;
  app.use(
    createErrorBoundary({
      logger,
      classify: (error) =>
        (error as { code?: unknown }).code === "SQLITE_BUSY"
          ? { status: 503, message: "Busy; try again", headers: { "retry-after": "5" } }
          : undefined,
    }),
  );
  const router = new Router();
  router.get("/things", (ctx) => {
    ctx.body = { things: [] };
  });
  router.post("/things", () => {
    throw new HttpError(409, "ERR_CONFLICT", "That thing exists");
  });
  router.get("/broken", () => {
    throw Object.assign(new Error("secret detail"), { status: 400 });
  });
  router.get("/busy", () => {
    throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
  });
  router.get("/thrown", (ctx) => ctx.throw(400, "Bad limit"));
  mountRouter(app, router);
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const call = async (method: string, path: string) => {
  const response = await fetch(`${base}${path}`, { method });
  return { status: response.status, allow: response.headers.get("allow"), body: await response.json() };
};

describe("createErrorBoundary with mountRouter", () => {
  it("answers an error carrying status and code with the contract's Error body", async () => {
    expect(await call("POST", "/things")).toMatchObject({
      status: 409,
      body: { error: 409, message: "That thing exists" },
    });
    expect(await call("GET", "/thrown")).toMatchObject({
      status: 400,
      body: { error: 400, message: "Bad limit" },
    });
  });

  it("answers 404 where no route matched, 405 with Allow for a wrong or unheard-of method", async () => {
    expect(await call("GET", "/nothing")).toEqual({
      status: 404,
      allow: null,
      body: { error: 404, message: "Not found" },
    });
    for (const method of ["DELETE", "PROPFIND"]) {
      const answer = await call(method, "/things");
      expect(answer.status).toBe(405);
      expect(answer.allow?.split(", ").sort()).toEqual(["GET", "HEAD", "POST"]);
      expect(answer.body).toEqual({ error: 405, message: expect.stringMatching(/^Method not allowed/) });
    }
    expect((await call("PROPFIND", "/nothing")).status).toBe(404);
  });

  it("lets the app classify its own errors, and hides anything else behind a logged 500", async () => {
    const busy = await fetch(`${base}/busy`);
    expect([busy.status, busy.headers.get("retry-after"), await busy.json()]).toEqual([
      503,
      "5",
      { error: 503, message: "Busy; try again" },
    ]);
    logged.length = 0;
    const broken = await call("GET", "/broken");
    expect(broken).toMatchObject({ status: 500, body: { error: 500, message: "Internal error" } });
    expect(JSON.stringify(broken.body)).not.toContain("secret detail");
    expect(logged).toMatchObject([{ level: "error", message: "request failed" }]);
  });
});
