import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/fetch.ts", "src/koa.ts", "src/sqlite.ts", "src/postgres.ts"],
  splitting: true,
  format: ["esm"],
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
});
