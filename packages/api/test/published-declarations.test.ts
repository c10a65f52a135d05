import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// What a stranger's tsc reads: the built declarations (dist/*.d.ts, made by `pnpm build`, which turbo runs
// before this package's tests). Each module they import must be one the stranger's npm install brings, with
// its types: found from outside, where a Hono project's strict tsc could not find `@plant-store/app-shell`
// (private, never published) nor Koa's types (`@types/koa` was only a devDependency).
const root = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const declarations = readdirSync(join(root, "dist")).filter((file) => file.endsWith(".d.ts"));

/** The packages a declaration file imports (`import … from "x"`, `import "x"`, `export … from "x"`). */
function importedPackages(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?["']([^"']+)["']/g)].map(
    (match) => match[1] as string,
  );
  return specifiers
    .filter((specifier) => !specifier.startsWith(".") && !specifier.startsWith("node:"))
    .map((specifier) =>
      specifier
        .split("/")
        .slice(0, specifier.startsWith("@") ? 2 : 1)
        .join("/"),
    );
}

/** Whether an installed package carries its own declarations (else they come from @types). */
function hasOwnTypes(name: string): boolean {
  const dir = join(root, "node_modules", name);
  const pkg = readFileSync(join(dir, "package.json"), "utf8");
  return /"(types|typings)"\s*:/.test(pkg) || existsSync(join(dir, "index.d.ts"));
}

describe("the published declarations", () => {
  it("exist for every entry", () => {
    expect(declarations).toEqual(expect.arrayContaining(["index.d.ts", "koa.d.ts", "postgres.d.ts"]));
  });

  it("import only dependencies (or optional peers the user installs), each with its types", () => {
    const dependencies = manifest.dependencies ?? {};
    const peers = manifest.peerDependencies ?? {};
    const problems: string[] = [];
    for (const file of declarations)
      for (const name of new Set(importedPackages(readFileSync(join(root, "dist", file), "utf8")))) {
        if (!(name in dependencies || name in peers))
          problems.push(`${file} imports ${name}, not a dependency`);
        // A peer's types are its user's to install with it; a dependency's must come with this package.
        const types = `@types/${name.replace(/^@/, "").replace("/", "__")}`;
        if (name in dependencies && !hasOwnTypes(name) && !(types in dependencies))
          problems.push(`${file} imports ${name}, whose types (${types}) are not a dependency`);
      }
    expect(problems).toEqual([]);
  });

  it("name Koa's types only in @plant-store/api/koa, so an Express or Hono project's strict tsc never loads them", () => {
    // @types/koa fails a strict check beside Express 5 (its content-disposition import), so a root or
    // postgres declaration that merely imported it would break an Express user's skipLibCheck: false.
    const koaTyped = (file: string, seen = new Set<string>()): string[] => {
      if (seen.has(file)) return [];
      seen.add(file);
      const source = readFileSync(join(root, "dist", file), "utf8");
      const local = [...source.matchAll(/from\s+["']\.\/([^"']+)\.js["']/g)].map((m) => `${m[1]}.d.ts`);
      const own = importedPackages(source).filter((name) => name === "koa" || name === "@koa/router");
      return [
        ...own.map((name) => `${file} imports ${name}`),
        ...local.flatMap((next) => koaTyped(next, seen)),
      ];
    };
    expect([...koaTyped("index.d.ts"), ...koaTyped("postgres.d.ts")]).toEqual([]);
    expect(koaTyped("koa.d.ts").length).toBeGreaterThan(0);
  });
});
