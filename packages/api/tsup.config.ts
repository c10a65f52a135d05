import { defineConfig } from "tsup";
import { pageScriptEsbuildPlugin } from "../../scripts/page-script.js";

export default defineConfig({
  entry: ["src/index.ts", "src/koa.ts", "src/postgres.ts"],
  format: ["esm"],
  target: "node20",
  splitting: true,
  sourcemap: true,
  clean: true,
  // The workspace's private shell (sessions, throttling, the error boundary) is bundled in: it is not
  // published, and only its HTTP half (`@plant-store/app-shell/http`) is imported, so none of the apps'
  // process set-up comes with it.
  noExternal: ["@plant-store/app-shell"],
  // The pages' scripts (src/pages), bundled for the browser and inlined as text.
  esbuildPlugins: [pageScriptEsbuildPlugin],
  // The shell's types (the throttle and sessions options take) are inlined too: a consumer cannot install
  // it. Its subpath is mapped to the source, which tsup's own resolver (no `exports` support) cannot find.
  dts: {
    entry: ["src/index.ts", "src/koa.ts", "src/postgres.ts"],
    resolve: [/^@plant-store\/app-shell/],
    compilerOptions: { paths: { "@plant-store/app-shell/http": ["../app-shell/src/http.ts"] } },
  },
});
