import { dirname, resolve } from "node:path";
import { buildSync, type Plugin as EsbuildPlugin } from "esbuild";
import type { Plugin as VitePlugin } from "vitest/config";

/**
 * A page's script, imported as `import SCRIPT from "./pages/x.ts?page-script"`: the default export is
 * the text of the module bundled with its imports (esbuild: platform browser, format iife), ready to
 * be inlined and hashed for the CSP by `renderStaticPage`. The same bundling runs in the apps' build
 * (tsup's esbuild plugin below) and in their tests (the vite plugin below, for tests that import src),
 * so no generated file is kept and no page code stays as text in a template string.
 */
const SUFFIX = "?page-script";

export function bundlePageScript(file: string): string {
  const result = buildSync({
    entryPoints: [file],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2020",
    charset: "utf8",
    legalComments: "none",
  });
  const text = result.outputFiles[0]?.text ?? "";
  // Inlined in a <script> element: a `</script` in it would end the element early.
  if (/<\/script/i.test(text))
    throw new Error(`${file}: its bundle holds "</script", which cannot be inlined`);
  return text;
}

const asModule = (file: string) => `export default ${JSON.stringify(bundlePageScript(file))};`;

/** For tsup (`esbuildPlugins`). */
export const pageScriptEsbuildPlugin: EsbuildPlugin = {
  name: "page-script",
  setup(build) {
    build.onResolve({ filter: /\?page-script$/ }, (args) => ({
      path: resolve(args.resolveDir, args.path.slice(0, -SUFFIX.length)),
      namespace: "page-script",
    }));
    build.onLoad({ filter: /.*/, namespace: "page-script" }, (args) => ({
      contents: asModule(args.path),
      loader: "js",
      // Rebuilt in watch mode when the page or the kit changes.
      watchDirs: [dirname(args.path)],
    }));
  },
};

const VIRTUAL = "\0page-script:";

/** For vitest (a project's `plugins`). */
export const pageScriptVitePlugin: VitePlugin = {
  name: "page-script",
  enforce: "pre",
  resolveId(source, importer) {
    if (!source.endsWith(SUFFIX) || !importer) return null;
    return VIRTUAL + resolve(dirname(importer), source.slice(0, -SUFFIX.length));
  },
  load(id) {
    return id.startsWith(VIRTUAL) ? asModule(id.slice(VIRTUAL.length)) : null;
  },
};
