import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium (`apt-get install -y chromium`; .ci/run installs it when missing). */
export const CHROMIUM = process.env.OA_CHROMIUM || "/usr/bin/chromium";

/** Where browser tests and benchmarks write screenshots (gitignored). */
export const SCREENSHOT_DIR = join(import.meta.dir, "..", "..", "..", ".artifacts", "screenshots");

/**
 * Headless Chromium driven by playwright-core. As root, Chromium's own sandbox cannot start
 * (it refuses without a user namespace); playwright passes --no-sandbox unless asked otherwise.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No Chromium at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (bash .ci/run does) or set OA_CHROMIUM.`,
    );
  return chromium.launch({ executablePath: CHROMIUM, args: ["--disable-dev-shm-usage"] });
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, name);
}
