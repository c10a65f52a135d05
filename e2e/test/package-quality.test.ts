import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedTarballs } from "./fixtures/packed-tarballs.js";
import {
  bin,
  type PublishedPackageName,
  publishedPackages,
  run,
  workspaceRoot,
} from "./fixtures/published-packages.js";

// What a stranger installs is the tarball, so every check here reads the packed tarball,
// never the workspace folder.
let scratch: string;
let tarballs: Record<PublishedPackageName, string>;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "plant-store-package-quality-"));
  tarballs = await packedTarballs();
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface PackedManifest {
  name: string;
  version: string;
  license?: string;
  type?: string;
  sideEffects?: boolean;
  engines?: { node?: string };
  repository?: { url?: string; directory?: string };
  files?: string[];
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

async function unpack(
  name: PublishedPackageName,
): Promise<{ dir: string; manifest: PackedManifest; files: string[] }> {
  const dir = join(scratch, "unpacked", name);
  await mkdir(dir, { recursive: true });
  await run("tar", ["-xzf", tarballs[name], "-C", dir]);
  const { stdout } = await run("tar", ["-tzf", tarballs[name]]);
  const files = stdout
    .split("\n")
    .filter(Boolean)
    .map((file) => file.replace(/^package\//, ""));
  const manifest = JSON.parse(await readFile(join(dir, "package", "package.json"), "utf8")) as PackedManifest;
  return { dir: join(dir, "package"), manifest, files };
}

describe.each(publishedPackages.map((p) => [p.name, p.dir]))("%s as packed", (name, dir) => {
  it("passes publint in strict mode (warnings count as errors)", async () => {
    const tarball = await readFile(tarballs[name]);
    const { messages, pkg } = await publint({
      pack: {
        tarball: tarball.buffer.slice(
          tarball.byteOffset,
          tarball.byteOffset + tarball.byteLength,
        ) as ArrayBuffer,
      },
      level: "warning",
      strict: true,
    });
    expect(messages.map((message) => formatMessage(message, pkg) ?? message.code)).toStrictEqual([]);
  });

  it("passes @arethetypeswrong/cli for an ESM-only package", async () => {
    const result = await run(bin("attw"), [
      tarballs[name],
      "--profile",
      "esm-only",
      "--format",
      "json",
    ]).catch((error: { stdout?: string; code?: number }) => ({
      stdout: error.stdout ?? "",
      failed: error.code ?? 1,
    }));
    const report = JSON.parse(result.stdout) as {
      analysis: { problems?: Record<string, Array<{ resolutionKind?: string; entrypoint?: string }>> };
    };
    // esm-only ignores CommonJS consumers (node16-cjs) and pre-exports resolution (node10).
    const problems = Object.values(report.analysis.problems ?? {})
      .flat()
      .filter((p) => p.resolutionKind !== "node16-cjs" && p.resolutionKind !== "node10");
    expect(problems).toStrictEqual([]);
    expect("failed" in result ? result.failed : 0).toBe(0);
  });

  it("has a complete package.json: ESM, types-first exports, files, engines, license, repository, sideEffects", async () => {
    const { manifest } = await unpack(name);
    expect(manifest.name).toBe(name);
    expect(manifest.type).toBe("module");
    expect(manifest.license).toBe("MIT");
    expect(manifest.engines?.node).toBe(">=20");
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.repository?.url).toMatch(/^git\+https:\/\//);
    expect(manifest.files?.length).toBeGreaterThan(0);
    expect(manifest.exports?.["./package.json"]).toBe("./package.json");
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (typeof target === "string") continue;
      expect(Object.keys(target as object)[0], `exports["${subpath}"] must list "types" first`).toBe("types");
    }
  });

  it("ships the MIT LICENSE, the same text as the repository's", async () => {
    const { dir: unpacked, files } = await unpack(name);
    expect(files).toContain("LICENSE");
    const license = await readFile(join(unpacked, "LICENSE"), "utf8");
    expect(license).toMatch(/^MIT License\n/);
    expect(license).toBe(await readFile(join(workspaceRoot, "LICENSE"), "utf8"));
  });

  it("points repository.directory at its own folder, in the one repository every package names", async () => {
    const { manifest } = await unpack(name);
    expect(manifest.repository?.directory).toBe(dir);
    const root = JSON.parse(
      await readFile(join(workspaceRoot, "spec", "package.json"), "utf8"),
    ) as PackedManifest;
    expect(manifest.repository?.url).toBe(root.repository?.url);
  });

  it("depends on published versions only (no workspace: ranges, no private workspace packages)", async () => {
    const { manifest } = await unpack(name);
    const ranges = { ...manifest.dependencies, ...manifest.peerDependencies };
    for (const [dependency, range] of Object.entries(ranges)) {
      expect(range, dependency).not.toMatch(/^workspace:/);
      expect(dependency).not.toBe("@plant-store/testing");
      if (dependency.startsWith("@plant-store/")) expect(range).toContain(manifest.version);
    }
  });

  it("ships a README with an example, and no sources, tests or docs builds", async () => {
    const { dir, files } = await unpack(name);
    expect(files).toContain("README.md");
    const readme = await readFile(join(dir, "README.md"), "utf8");
    expect(readme).toMatch(new RegExp(`(npm install|npm i|pnpm add|yarn add) ${name}`));
    expect(readme).toMatch(/```(ts|typescript|js)\n/);
    expect(files.filter((file) => /^(src|test)\/|\.test\.|^dist\/docs\//.test(file))).toStrictEqual([]);
  });
});
