import { defineConfig } from "tsup";
import { pageScriptEsbuildPlugin } from "../../scripts/page-script.js";

export default defineConfig({
  entry: ["src/cli.ts", "src/index.ts"],
  format: ["esm"],
  target: "node20",
  sourcemap: true,
  clean: true,
  // The live page's script (src/pages), bundled for the browser and inlined as text.
  esbuildPlugins: [pageScriptEsbuildPlugin],
});
