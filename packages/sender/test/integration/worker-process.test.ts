import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "@plant-store/testing";
import { afterEach, describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("../fixtures/idle-worker.mjs", import.meta.url));

describe("a process running a worker", () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it("stays up while the worker runs, with nothing to deliver, and ends by itself once it is stopped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-worker-process-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const child = spawn(process.execPath, [script, join(dir, "store.db")], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    cleanups.push(() => child.kill("SIGKILL"));
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    await waitFor(() => (stdout.includes("started") ? true : undefined), 10_000);
    // Several poll intervals with an empty event loop but for the worker: it must still be running.
    await waitFor(() => (stdout.split("polled\n").length > 5 ? true : undefined), 10_000);
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();

    child.kill("SIGTERM");
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stdout).toContain("stopped");
  });
});
