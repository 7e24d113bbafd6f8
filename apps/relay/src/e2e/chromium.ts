import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { chromium, type Browser } from "playwright-core";

/** Chromium from HANDOFF_CHROMIUM, or the first chromium/chrome on PATH (app-kit's, shared with the broker's dashboard test). */
export { findChromium } from "@handoff/app-kit/testing";

/** Headless Chromium at `executablePath`, with what a container needs (no sandbox, no GPU). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"], timeout: WAIT_LIMIT_MS });
}
