import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/run.ts", "src/servers/*.ts", "src/clients/*.ts"],
  format: ["esm"],
  target: "node20",
  sourcemap: true,
  clean: true,
});
