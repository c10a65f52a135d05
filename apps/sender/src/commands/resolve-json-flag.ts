import type { Command } from "commander";
import { z } from "zod";
import { BooleanSetting } from "../boolean-setting.js";
import { parseConfig } from "../parse-config.js";
import { readFlag } from "./read-flag.js";

const JsonSetting = z.object({ json: BooleanSetting });

/**
 * A `preAction` hook: settles `--json` (or `PLANT_STORE_JSON`) before a command does anything, so a
 * value that is neither on nor off stops the command with a configuration error instead of writing first.
 */
export function resolveJsonFlag(_program: Command, action: Command): void {
  if (!action.options.some((option) => option.attributeName() === "json")) return;
  const { json } = parseConfig(JsonSetting, {
    json: readFlag(action.getOptionValue("json"), "PLANT_STORE_JSON"),
  });
  action.setOptionValue("json", json);
}
