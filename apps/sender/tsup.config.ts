import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/cli.ts", "src/index.ts"],
  format: ["esm"],
  target: "node20",
  sourcemap: true,
  clean: true,
  // The bench drives the store through its index, typed as the app exports it.
  dts: { entry: "src/index.ts" },
});
