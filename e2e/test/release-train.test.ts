import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bin, publishedPackages, run, workspaceRoot } from "./fixtures/published-packages.js";
import { copyWorkspaceManifests, workspacePackageDirs } from "./fixtures/workspace-manifests.js";

// `changeset version` on a scratch copy of the workspace's manifests: the real config, the real
// package.json files, a sample changeset. Nothing in the workspace itself is touched.
interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

let scratch: string;
let dirs: string[];

async function manifest(root: string, dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(root, dir, "package.json"), "utf8")) as Manifest;
}

async function changesetVersion(): Promise<void> {
  await run(bin("changeset"), ["version"], { cwd: scratch, env: { ...process.env, CI: "true" } });
}

function nextMinor(version: string): string {
  const [major, minor] = version.split(".").map(Number);
  return `${major}.${(minor ?? 0) + 1}.0`;
}

async function setUp(withPendingChangesets: boolean): Promise<void> {
  scratch = await mkdtemp(join(tmpdir(), "plant-store-release-train-"));
  dirs = await copyWorkspaceManifests(scratch, withPendingChangesets);
  // changesets loads the changelog generator named in config.json from the project's node_modules.
  await symlink(join(workspaceRoot, "node_modules"), join(scratch, "node_modules"), "dir");
}

async function tearDown(): Promise<void> {
  await rm(scratch, { recursive: true, force: true });
}

describe(".changeset/config.json", () => {
  it("has one fixed group holding exactly the workspace packages that are not private", async () => {
    const config = JSON.parse(await readFile(join(workspaceRoot, ".changeset", "config.json"), "utf8")) as {
      fixed: string[][];
      access: string;
      privatePackages: { version: boolean; tag: boolean };
    };
    const published: string[] = [];
    for (const dir of await workspacePackageDirs()) {
      const pkg = await manifest(workspaceRoot, dir);
      if (!pkg.private) published.push(pkg.name);
    }
    expect(config.fixed).toHaveLength(1);
    expect([...(config.fixed[0] ?? [])].sort()).toStrictEqual(published.sort());
    expect([...published].sort()).toStrictEqual(publishedPackages.map((p) => p.name).sort());
    expect(config.access).toBe("public");
    expect(config.privatePackages).toStrictEqual({ version: false, tag: false });
  });
});

/** The sample changeset: a minor change of the types alone. */
async function writeSampleChangeset(): Promise<void> {
  await writeFile(
    join(scratch, ".changeset", "sample-types-change.md"),
    '---\n"@plant-store/types": minor\n---\n\nSample: a new export in types.\n',
  );
}

// One `changeset version` for the tests that only read what it did (each ran the same one on the same
// copy before, five runs of one command); the test that changes a manifest first has a copy of its own.
describe("changeset version with one sample changeset", () => {
  let workspaceDir: string;
  let privateDirs: string[];
  /** The private packages' manifests in the copy before versioning. */
  let privateBefore: Manifest[];

  beforeAll(async () => {
    await setUp(false);
    workspaceDir = scratch;
    await writeSampleChangeset();
    privateDirs = [];
    for (const dir of dirs) if ((await manifest(workspaceRoot, dir)).private) privateDirs.push(dir);
    privateBefore = await Promise.all(privateDirs.map((dir) => manifest(workspaceDir, dir)));
    await changesetVersion();
  });
  afterAll(async () => {
    if (workspaceDir) await rm(workspaceDir, { recursive: true, force: true });
  });

  it("moves every published package to the same next version, though only one was named", async () => {
    const before = await Promise.all(publishedPackages.map((p) => manifest(workspaceRoot, p.dir)));
    const versions = new Set(before.map((m) => m.version));
    expect(versions.size, "the fixed group already shares one version").toBe(1);
    const after = await Promise.all(publishedPackages.map((p) => manifest(workspaceDir, p.dir)));
    const expected = nextMinor([...versions][0] as string);
    expect(after.map((m) => [m.name, m.version])).toStrictEqual(
      publishedPackages.map((p) => [p.name, expected]),
    );
  });

  it("writes a CHANGELOG entry in every published package: the change where it was made, a dependency note elsewhere", async () => {
    const version = (await manifest(workspaceDir, "packages/types")).version;
    const changelog = (dir: string) => readFile(join(workspaceDir, dir, "CHANGELOG.md"), "utf8");
    expect(await changelog("packages/types")).toMatch(
      new RegExp(`## ${version}\\n\\n### Minor Changes\\n\\n- Sample: a new export in types\\.`),
    );
    for (const dir of ["packages/receiver", "packages/sender"]) {
      const text = await changelog(dir);
      expect(text).toContain(`## ${version}`);
      expect(text).toContain(`@plant-store/types@${version}`);
    }
    expect(await changelog("spec")).toContain(`## ${version}`);
  });

  it("keeps workspace:^ ranges, which pnpm pack and publish turn into a caret range of the new version", async () => {
    const before = await manifest(workspaceRoot, "packages/sender");
    const after = await manifest(workspaceDir, "packages/sender");
    expect(before.dependencies?.["@plant-store/types"]).toBe("workspace:^");
    expect(after.dependencies?.["@plant-store/types"]).toBe("workspace:^");
  });

  it("leaves private packages (the apps, e2e, testing) untouched", async () => {
    expect(privateDirs).toEqual(
      expect.arrayContaining(["apps/receiver", "apps/sender", "e2e", "packages/testing"]),
    );
    // Compared as values: changesets re-serialises some manifests without changing them.
    const after = await Promise.all(privateDirs.map((dir) => manifest(workspaceDir, dir)));
    expect(after).toStrictEqual(privateBefore);
    for (const dir of privateDirs) {
      await expect(readFile(join(workspaceDir, dir, "CHANGELOG.md"), "utf8")).rejects.toThrow(/ENOENT/);
    }
  });

  it("consumes the changeset", async () => {
    await expect(
      readFile(join(workspaceDir, ".changeset", "sample-types-change.md"), "utf8"),
    ).rejects.toThrow(/ENOENT/);
  });
});

describe("changeset version with one sample changeset and an explicit internal range", () => {
  beforeEach(async () => {
    await setUp(false);
    await writeSampleChangeset();
  });
  afterEach(tearDown);

  it("updates explicit internal ranges to the new version", async () => {
    // If a package ever pins a range instead of workspace:^, changesets must move it with the train.
    const path = join(scratch, "packages/sender/package.json");
    const sender = await manifest(scratch, "packages/sender");
    const current = (await manifest(scratch, "packages/types")).version;
    await writeFile(
      path,
      JSON.stringify({
        ...sender,
        dependencies: { ...sender.dependencies, "@plant-store/types": `workspace:^${current}` },
      }),
    );
    await changesetVersion();
    const after = await manifest(scratch, "packages/sender");
    expect(after.dependencies?.["@plant-store/types"]).toBe(`workspace:^${nextMinor(current)}`);
  });
});

describe("changeset version with the changesets pending in the workspace", () => {
  beforeEach(async () => {
    await setUp(true);
  });
  afterEach(tearDown);

  it("applies them cleanly and keeps the published packages on one version", async () => {
    await changesetVersion();
    const after = await Promise.all(publishedPackages.map((p) => manifest(scratch, p.dir)));
    expect(new Set(after.map((m) => m.version)).size).toBe(1);
  });
});
