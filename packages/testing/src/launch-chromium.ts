import type { Browser } from "playwright-core";

/**
 * Debian's Chromium (`/usr/bin/chromium`, or `CHROMIUM_PATH`) headless through playwright-core, with
 * the flags this machine needs: without the background-networking ones Chromium keeps dialling
 * Google's hosts, which the closed network refuses. playwright-core is imported here, on first use,
 * so the demo and the fixtures that import this package never load it.
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
