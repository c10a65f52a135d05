import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyWorkspace } from "./fixtures/copy-workspace.js";
import {
  expectConsumerReceives,
  expectReadmeExamplesFound,
  expectReadmeExamplesRun,
  typeCheckConsumer,
} from "./fixtures/expect-consumer-project.js";
import { installConsumerProject, type ReadmeExample } from "./fixtures/install-consumer-project.js";
import {
  type PublishedPackageName,
  publishedPackages,
  run,
  workspaceRoot,
} from "./fixtures/published-packages.js";
import { startVerdaccio, type TestRegistry } from "./fixtures/start-verdaccio.js";

// The release as a maintainer runs it (CONTRIBUTING: `changeset version`, then `pnpm release`, which
// builds and runs `changeset publish`), on a copy of the workspace, against a real registry
// (verdaccio on loopback); then a stranger installs what was published, by version, with plain npm.
// The first release is `pnpm release` whole, build included, which takes most of this file's time. The
// second reuses that build: `changeset version` changes each package.json's version, which turbo hashes
// whole (it has no way to leave one field out), so `pnpm release` would rebuild every package from the
// same sources (about a minute of a CI near its limit) to publish the same files. It runs what
// `pnpm release` runs after its build, read from the script, once the copy shows that versioning
// changed nothing a build reads.

interface Packument {
  "dist-tags": Record<string, string>;
  versions: Record<string, { dependencies?: Record<string, string>; dist?: { integrity?: string } }>;
}

let scratch: string;
let copy: string;
let registry: TestRegistry;
let checkoutBefore: string[];

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "registry test",
  GIT_AUTHOR_EMAIL: "registry-test@example.invalid",
  GIT_COMMITTER_NAME: "registry test",
  GIT_COMMITTER_EMAIL: "registry-test@example.invalid",
};

/** The tags in the copy's repository. */
async function tagsInCopy(): Promise<string[]> {
  return (await run("git", ["tag", "--list"], { cwd: copy, env: gitEnv })).stdout.split("\n").filter(Boolean);
}

/** The environment of every command that could publish: our scope and the default registry both point at verdaccio. */
function releaseEnv(): NodeJS.ProcessEnv {
  return {
    ...gitEnv,
    CI: "true",
    npm_config_registry: registry.url,
    "npm_config_@plant-store:registry": registry.url,
  };
}

async function versionInCopy(): Promise<void> {
  await run(join(copy, "node_modules", ".bin", "changeset"), ["version"], { cwd: copy, env: releaseEnv() });
}

async function runInCopy(command: string, args: string[]): Promise<void> {
  try {
    await run(command, args, { cwd: copy, env: releaseEnv(), maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `${[command, ...args].join(" ")} failed:\n${stdout ?? ""}\n${stderr ?? ""}\nverdaccio:\n${registry.output()}`,
    );
  }
}

/** `pnpm release` is its build, then its publishing step: this one's arguments. */
async function publishStepOfRelease(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(copy, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const [build, publish, ...rest] = (manifest.scripts.release ?? "").split(" && ");
  expect(build, "pnpm release builds first").toMatch(/^turbo run build /);
  expect(rest, "pnpm release is a build and one publishing step").toStrictEqual([]);
  return (publish ?? "").split(" ");
}

/** Files changed in the copy since its last commit. */
async function changedInCopy(): Promise<string[]> {
  const { stdout } = await run("git", ["status", "--porcelain", "--untracked-files=all"], {
    cwd: copy,
    env: gitEnv,
  });
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => line.slice(3));
}

async function versionsInCopy(): Promise<Record<PublishedPackageName, string>> {
  const entries = await Promise.all(
    publishedPackages.map(async ({ name, dir }) => {
      const manifest = JSON.parse(await readFile(join(copy, dir, "package.json"), "utf8")) as {
        version: string;
      };
      return [name, manifest.version] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<PublishedPackageName, string>;
}

async function packument(name: string): Promise<Packument> {
  const answer = await fetch(`${registry.url}${name.replace("/", "%2f")}`);
  expect(answer.status, name).toBe(200);
  return (await answer.json()) as Packument;
}

/** What versioning would change in the checkout: the published manifests and the pending changesets. */
async function checkoutState(): Promise<string[]> {
  const manifests = await Promise.all(
    publishedPackages.map(({ dir }) => readFile(join(workspaceRoot, dir, "package.json"), "utf8")),
  );
  return [...manifests, ...(await readdir(join(workspaceRoot, ".changeset"))).sort()];
}

function bumpPatch(version: string): string {
  const [major, minor, patch] = version.split(".").map(Number);
  return `${major}.${minor}.${(patch ?? 0) + 1}`;
}

/** What the second release changed in the copy on its way to the registry, for the test to check. */
interface SecondRelease {
  /** Files `changeset version` changed. */
  versioned: string[];
  /** `git diff -U0` of every package.json after versioning. */
  manifestDiff: string;
}

/**
 * The second release as a maintainer makes it: the first committed, a changeset naming one package,
 * `changeset version`, then `pnpm release`'s publishing step (its build is the first release's: see
 * the comment at the top). Only what it saw is returned; the test checks all of it.
 */
async function releaseSecond(): Promise<SecondRelease> {
  // As a maintainer commits a release before the next: what the next versioning changes shows alone.
  await run("git", ["add", "-A"], { cwd: copy, env: gitEnv });
  await run("git", ["commit", "-q", "-m", "the first release"], { cwd: copy, env: gitEnv });
  await writeFile(
    join(copy, ".changeset", "registry-test-second-release.md"),
    '---\n"@plant-store/receiver": patch\n---\n\nA second release, from the registry test.\n',
  );
  await versionInCopy();
  const versioned = await changedInCopy();
  const { stdout: manifestDiff } = await run("git", ["diff", "-U0", "--", "package.json", "*/package.json"], {
    cwd: copy,
    env: gitEnv,
  });
  const [publishCommand = "", ...publishArgs] = await publishStepOfRelease();
  await runInCopy(join(copy, "node_modules", ".bin", publishCommand), publishArgs);
  return { versioned, manifestDiff };
}

/** For the sender README's PostgreSQL example. */
let postgres: TestPostgres;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "plant-store-registry-"));
  // The copy gets a repository of its own (changesets tags releases): never inside ours.
  expect(scratch.startsWith(workspaceRoot)).toBe(false);
  checkoutBefore = await checkoutState();
  copy = join(scratch, "workspace");
  // PostgreSQL, verdaccio and the copy's install need nothing of each other: started side by side
  // (each mostly waits on a process: initdb, verdaccio's start, pnpm), each settled before any
  // failure is thrown, so that afterAll never removes the scratch folder under one still running.
  const settled = await Promise.allSettled([
    startPostgres().then((started) => {
      postgres = started;
    }),
    startVerdaccio(join(scratch, "verdaccio")).then((started) => {
      registry = started;
    }),
    (async () => {
      await copyWorkspace(copy);
      // The store already holds every package (CI just installed them): no network, no native rebuild.
      // No registry is asked for anything here (--offline): verdaccio's URL is needed from the release on.
      await run("pnpm", ["install", "--offline", "--frozen-lockfile"], {
        cwd: copy,
        env: { ...gitEnv, CI: "true" },
      });
      // A repository of its own, as a clone is: `changeset publish` tags each release there.
      for (const args of [
        ["init", "-q"],
        ["add", "-A"],
        ["commit", "-q", "-m", "the workspace, copied"],
      ]) {
        await run("git", args, { cwd: copy, env: gitEnv });
      }
    })(),
  ]);
  for (const result of settled) if (result.status === "rejected") throw result.reason;
  const host = registry.url.replace(/^http:/, "");
  await writeFile(join(copy, ".npmrc"), `${host}:_authToken=${registry.token}\n`);
}, 300_000);

afterAll(async () => {
  await postgres?.stop();
  await registry?.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe("a release published to a registry (verdaccio), installed by version with npm", () => {
  let first: string;
  let project: string;
  let readmeExamples: ReadmeExample[] = [];
  /**
   * The second release, started once the consumer is installed: it changes only the copy and the
   * registry, which the type check and the README examples (they read the consumer project alone) never
   * look at, so it runs beside them instead of after them (about 20 s of a CI near its limit). Its
   * test waits for it and checks what it did.
   */
  let secondRelease: Promise<SecondRelease> | undefined;

  afterAll(async () => {
    // Never under a release still running, whatever failed first.
    await secondRelease?.catch(() => undefined);
  });

  it("changeset version then pnpm release publish every published package at one version", async () => {
    await versionInCopy();
    await runInCopy("pnpm", ["release"]);
    const versions = await versionsInCopy();
    first = versions["@plant-store/spec"];
    expect(Object.values(versions), "the fixed group shares one version").toStrictEqual(
      publishedPackages.map(() => first),
    );
    for (const { name } of publishedPackages) {
      const published = await packument(name);
      expect(Object.keys(published.versions), name).toStrictEqual([first]);
      expect(published["dist-tags"].latest, name).toBe(first);
    }
    // workspace:^ became a caret range of that version in what was published, so a stranger installing one
    // package alone gets a sibling from any later release of the train (an exact pin 404ed before one was out).
    const sender = (await packument("@plant-store/sender")).versions[first];
    expect(sender?.dependencies?.["@plant-store/types"]).toBe(`^${first}`);
    expect(await tagsInCopy()).toEqual(
      expect.arrayContaining(publishedPackages.map(({ name }) => `${name}@${first}`)),
    );
    // The checkout itself was neither versioned nor had its changesets consumed.
    expect(await checkoutState()).toStrictEqual(checkoutBefore);
  }, 600_000);

  it("a stranger's project installs every one of them by that version from the registry with plain npm", async () => {
    project = join(scratch, "consumer");
    readmeExamples = await installConsumerProject({
      dir: project,
      packages: Object.fromEntries(publishedPackages.map(({ name }) => [name, first])) as Record<
        PublishedPackageName,
        string
      >,
      // Only our scope comes from verdaccio; koa, got, zod & co. from the usual registry.
      npmrc: `@plant-store:registry=${registry.url}\n`,
    });
    const lock = JSON.parse(await readFile(join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; integrity?: string }>;
    };
    for (const { name } of publishedPackages) {
      const copies = Object.entries(lock.packages).filter(([path]) => path.endsWith(`node_modules/${name}`));
      expect(
        copies.map(([path]) => path),
        name,
      ).toStrictEqual([`node_modules/${name}`]);
      // npm 11 wrote no `resolved` for these in the lock here; the integrity names the exact tarball,
      // and it must be the one verdaccio holds.
      const published = (await packument(name)).versions[first]?.dist?.integrity;
      expect(published, name).toMatch(/^sha512-/);
      expect(copies[0]?.[1], name).toMatchObject({ version: first, integrity: published });
    }
    // Everything else came from the usual registry: verdaccio has no uplink and knows nothing else.
    for (const dependency of ["koa", "got", "zod"]) {
      expect(lock.packages[`node_modules/${dependency}`]?.integrity, dependency).toMatch(/^sha512-/);
      expect((await fetch(`${registry.url}${dependency}`)).status, dependency).toBe(404);
    }
    // From here the consumer's dependencies are resolved: a second release can no longer change them.
    secondRelease = releaseSecond();
    // Awaited, and its failure reported, by its own test below.
    secondRelease.catch(() => undefined);
  }, 300_000);

  it("type-checks a strict TypeScript consumer and the README examples against what was installed", async () => {
    expectReadmeExamplesFound(readmeExamples);
    expect(await typeCheckConsumer(project)).toBe("");
  }, 120_000);

  it("runs every README example and the consumer", async () => {
    await expectReadmeExamplesRun(project, scratch, readmeExamples, () => postgres.createDatabase());
    await expectConsumerReceives(project);
  }, 300_000);

  it("a second release after a changeset naming one package moves all of them together", async () => {
    if (secondRelease === undefined)
      throw new Error("the second release never started: the install test failed first");
    const { versioned, manifestDiff } = await secondRelease;
    // Only versions, changelogs and the consumed changeset: the first release's build is this one's.
    for (const { dir } of publishedPackages) expect(versioned).toContain(`${dir}/package.json`);
    expect(
      versioned.filter(
        (file) => !file.startsWith(".changeset/") && !/(^|\/)(package\.json|CHANGELOG\.md)$/.test(file),
      ),
    ).toStrictEqual([]);
    const manifestLines = manifestDiff.split("\n").filter((line) => /^[+-](?![+-]{2} )/.test(line));
    expect(manifestLines.length).toBeGreaterThan(0);
    expect(manifestLines.filter((line) => !/^[+-]\s*"version": "[^"]+",?$/.test(line))).toStrictEqual([]);
    const second = bumpPatch(first);
    expect(await versionsInCopy()).toStrictEqual(
      Object.fromEntries(publishedPackages.map(({ name }) => [name, second])),
    );
    for (const { name } of publishedPackages) {
      const published = await packument(name);
      expect(Object.keys(published.versions).sort(), name).toStrictEqual([first, second].sort());
      expect(published["dist-tags"].latest, name).toBe(second);
    }
    expect(await tagsInCopy()).toEqual(
      expect.arrayContaining(publishedPackages.map(({ name }) => `${name}@${second}`)),
    );
    const sender = (await packument("@plant-store/sender")).versions[second];
    expect(sender?.dependencies?.["@plant-store/types"]).toBe(`^${second}`);
    // What a stranger asking for the new sender gets: the types of the same release at least.
    const { stdout } = await run("npm", ["view", `@plant-store/sender@${second}`, "dependencies", "--json"], {
      cwd: project,
      env: { ...process.env, npm_config_workspaces: "false" },
    });
    expect((JSON.parse(stdout) as Record<string, string>)["@plant-store/types"]).toBe(`^${second}`);
  }, 600_000);
});
