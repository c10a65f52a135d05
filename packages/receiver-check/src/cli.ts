#!/usr/bin/env node
import { runCheckCli } from "./run-check-cli.js";

process.exitCode = await runCheckCli(process.argv.slice(2));
