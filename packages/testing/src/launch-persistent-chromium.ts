import type { BrowserContext } from "playwright-core";
import { CHROMIUM } from "./chromium-args.js";

/**
 * Debian's Chromium headless with a profile kept in `userDataDir`, as a user's browser keeps one:
 * its History, cookies and storage are files there, to be read once the context is closed (Chromium
 * writes them out on a clean close).
 */
export async function launchPersistentChromium(userDataDir: string): Promise<BrowserContext> {
  const { chromium } = await import("playwright-core");
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM.executablePath,
    args: [...CHROMIUM.args],
  });
}
