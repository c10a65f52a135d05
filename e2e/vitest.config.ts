import { defineConfig } from "vitest/config";
import { e2eProjects } from "./vitest.projects.config.js";

export default defineConfig({ test: { projects: e2eProjects } });
