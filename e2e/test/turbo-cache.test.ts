import { appendFile, cp, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bin, publishedPackages, run, workspaceRoot } from "./fixtures/published-packages.js";

// turbo replays a cached pass when a task's hash is unchanged. A file a test reads but turbo does not
// hash (a changeset, a README packed into a tarball) would let `pnpm test` replay an old pass after
// that file changed. Each case edits one file in a scratch copy of the workspace and asks turbo for
// the task's hash (a dry run: nothing is built or run).
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "plant-store-turbo-cache-"));
  const skipped = new Set(["node_modules", "dist", ".turbo", ".git", "coverage", "data", "tmp", "results"]);
  await cp(workspaceRoot, scratch, { recursive: true, filter: (source) => !skipped.has(basename(source)) });
  // turbo finds its own version in the root's dependencies (only looked at, never written). The
  // packages' node_modules are left out: without a repository turbo walks every folder to hash it, and
  // through their links into pnpm's store that took 5 to 45 s per dry run instead of half a second.
  await symlink(join(workspaceRoot, "node_modules"), join(scratch, "node_modules"), "dir");
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface DryRunTask {
  taskId: string;
  hash: string;
  /** Every file turbo hashed for the task, relative to the package folder. */
  inputs: Record<string, string>;
}

async function dryRun(taskId: string): Promise<DryRunTask> {
  const [pkg, task] = taskId.split("#") as [string, string];
  const { stdout } = await run(bin("turbo"), ["run", task, `--filter=${pkg}`, "--dry=json"], {
    cwd: scratch,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" },
  });
  const dry = JSON.parse(stdout) as { tasks: DryRunTask[] };
  const found = dry.tasks.find((entry) => entry.taskId === taskId);
  if (!found) throw new Error(`turbo planned no ${taskId}`);
  return found;
}

const taskHash = async (taskId: string) => (await dryRun(taskId)).hash;
const taskInputs = async (taskId: string) => (await dryRun(taskId)).inputs;

/** The task's hash before and after `file` changes; the file is put back afterwards. */
async function hashesAround(taskId: string, file: string): Promise<[string, string]> {
  const path = join(scratch, file);
  const original = await readFile(path);
  const before = await taskHash(taskId);
  await appendFile(path, "\n");
  try {
    return [before, await taskHash(taskId)];
  } finally {
    await writeFile(path, original);
  }
}

/**
 * Files outside the e2e folder that its tests read: the release train, the tarballs, the demo script;
 * and what the registry test's `pnpm install` and `pnpm release` in a copy of the workspace read
 * beyond the builds e2e depends on (the lockfile, the task graph, the bench, which e2e does not
 * depend on but the release builds).
 */
const e2eInputs = [
  ".changeset/config.json",
  ".changeset/packaging-a-new-changeset.md",
  "pnpm-workspace.yaml",
  "package.json",
  "pnpm-lock.yaml",
  "turbo.json",
  "bench/src/run.ts",
  "bench/tsup.config.ts",
  "LICENSE",
  "scripts/run-built.sh",
  // The document the installed plant-webhooks generates from, as the CLI's README names it.
  "packages/cli/test/fixtures/orders-openapi.json",
  ...publishedPackages.flatMap(({ dir }) => [`${dir}/README.md`, `${dir}/package.json`, `${dir}/LICENSE`]),
];

describe("turbo's cache key of the e2e tests", () => {
  it("covers every file outside e2e/ that the tests read, a changeset added later included", async () => {
    await writeFile(join(scratch, ".changeset/packaging-a-new-changeset.md"), "---\n---\n");
    try {
      const hashed = Object.keys(await taskInputs("plant-store-e2e#test"));
      for (const file of e2eInputs) expect(hashed, file).toContain(`../${file}`);
    } finally {
      await rm(join(scratch, ".changeset/packaging-a-new-changeset.md"));
    }
  });

  it.each([".changeset/config.json", "packages/types/README.md"])("changes when %s changes", async (file) => {
    const [before, after] = await hashesAround("plant-store-e2e#test", file);
    expect(after).not.toBe(before);
  });
});

describe("turbo's cache keys of every package", () => {
  it("typecheck changes with the shared tsconfig base", async () => {
    const [before, after] = await hashesAround("@plant-store/types#typecheck", "tsconfig.base.json");
    expect(after).not.toBe(before);
  });

  it.each(["vitest.config.ts", "scripts/fail-on-console.ts"])("test changes with %s", async (file) => {
    const [before, after] = await hashesAround("@plant-store/types#test", file);
    expect(after).not.toBe(before);
  });
});
