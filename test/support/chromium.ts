import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium, which the browser tests drive (`.ci/run` installs it). */
export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests are skipped here, or false when Chromium is installed. */
export const NO_CHROMIUM = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found (apt-get install chromium): browser test skipped`;

/** Headless Chromium with nothing of its own on the network (no updates, sync or QUIC probes). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
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
