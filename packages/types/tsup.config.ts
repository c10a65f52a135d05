import { defineConfig } from "tsup";

export default defineConfig({
  // Two builds of one source: index.js (node:crypto) and index.web.js (Web Crypto), picked by the
  // `exports` conditions in package.json. Shared code is split into common chunks.
  entry: ["src/index.ts", "src/index.web.ts"],
  format: ["esm"],
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
});
