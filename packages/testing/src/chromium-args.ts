/**
 * Debian's Chromium (`/usr/bin/chromium`, or `CHROMIUM_PATH`) and the flags this machine needs:
 * without the background-networking ones Chromium keeps dialling Google's hosts, which the closed
 * network refuses.
 */
export const CHROMIUM = {
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
} as const;
