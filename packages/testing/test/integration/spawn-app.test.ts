import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AppStartError, spawnApp } from "../../src/spawn-app.js";

const script = fileURLToPath(new URL("../fixtures/listening-app.mjs", import.meta.url));

describe("spawnApp", () => {
  it("waits for the listening line, collects the log lines, and stops with the exit code", async () => {
    const app = await spawnApp("stand-in", script, []);
    expect(await (await fetch(app.url)).text()).toBe("ok");
    const later: unknown[] = [];
    app.onLine((line) => later.push(line));
    expect(await app.stop()).toBe(0);
    expect(app.lines.map((line) => line.msg)).toEqual(["listening", "stopped"]);
    expect(app.rawLines[0]).toBe("not json");
    expect(later).toEqual([{ msg: "stopped", event: "app.stopped" }]);
    await expect(fetch(app.url)).rejects.toThrow();
  });

  it("fails with the app's output when it exits before listening", async () => {
    const failed = spawnApp("stand-in", script, ["--fail"]);
    await expect(failed).rejects.toBeInstanceOf(AppStartError);
    await expect(failed).rejects.toThrow(/exited with code 2 before listening[\s\S]*bad configuration/);
  });
});
