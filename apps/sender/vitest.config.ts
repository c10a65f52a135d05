import { defineConfig } from "vitest/config";
import { senderAppProjects } from "./vitest.projects.config.js";

export default defineConfig({ test: { projects: senderAppProjects } });
