import type { Browser } from "playwright-core";
import { CHROMIUM } from "./chromium-args.js";

/**
 * Debian's Chromium headless through playwright-core, with the flags this machine needs (`CHROMIUM`).
 * playwright-core is imported here, on first use, so the demo and the fixtures that import this
 * package never load it.
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM.executablePath, args: [...CHROMIUM.args] });
}
