import { defineConfig } from "tsup";
import { pageScriptEsbuildPlugin } from "../../scripts/page-script.js";

export default defineConfig({
  entry: ["src/cli.ts", "src/main.ts", "src/index.ts"],
  format: ["esm"],
  target: "node20",
  sourcemap: true,
  clean: true,
  // The workspace's libraries, zod and commander are bundled in, so a command loads a few files instead
  // of about 170 (zod alone is 95: every locale). On Node 20 the module loader's cost per file, not the
  // code, was most of `plants add`'s start (6.1 times `node -e 0` before commands were loaded lazily,
  // 3.8 with lazy commands). Outside, loaded from node_modules only when a command needs them: the
  // native drivers, koa, pino, prom-client, got, ipaddr.js and the tracing SDK; each is in package.json
  // because the bundled code imports it from here. The OpenTelemetry API stays outside too: a second
  // copy of it never sees the SDK the store registers (the sender's tracer, taken from the bundled copy
  // before registration, stayed a no-op and e2e/test/trace.test.ts failed).
  noExternal: [/^@plant-store\//, "zod", "commander"],
  // esbuild's ESM output has no `require` for the bundled CommonJS (commander) to load Node's built-ins.
  banner: {
    js: 'import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);',
  },
  // The pages' scripts (src/pages), bundled for the browser and inlined as text.
  esbuildPlugins: [pageScriptEsbuildPlugin],
  // The bench drives the store through its index, typed as the app exports it.
  dts: { entry: "src/index.ts" },
});
