import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { summarizeCpuProfile } from "./summarize-cpu-profile.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function writeProfile(profile: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "bench-profile-"));
  dirs.push(dir);
  const file = join(dir, "x.cpuprofile");
  writeFileSync(file, JSON.stringify(profile));
  return file;
}

describe("summarizeCpuProfile", () => {
  it("shares self time by module and function, leaving idle time out", () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });
    const file = writeProfile({
      nodes: [
        { id: 1, callFrame: frame("(idle)", "") },
        {
          id: 2,
          callFrame: frame(
            "compose",
            "file:///r/node_modules/.pnpm/koa-compose@4.1.0/node_modules/koa-compose/index.js",
          ),
        },
        { id: 3, callFrame: frame("verify", "file:///r/packages/receiver/dist/index.js") },
        { id: 4, callFrame: frame("hash", "node:internal/crypto/hash") },
      ],
      samples: [1, 2, 3, 3, 4, 3],
      timeDeltas: [1000, 10, 20, 20, 10, 20],
    });
    const summary = summarizeCpuProfile(file);
    expect(summary.modules).toEqual([
      { label: "packages/receiver", share: 0.75 },
      { label: "koa-compose", share: 0.125 },
      { label: "node core", share: 0.125 },
    ]);
    expect(summary.functions[0]).toEqual({ label: "verify index.js:10 [packages/receiver]", share: 0.75 });
  });
});
