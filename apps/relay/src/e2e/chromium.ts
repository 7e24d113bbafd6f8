import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { chromium, type Browser } from "playwright-core";

/** Chromium from HANDOFF_CHROMIUM, or the first chromium/chrome on PATH (as the broker's dashboard test finds it). */
export function findChromium(): string | undefined {
  const named = process.env["HANDOFF_CHROMIUM"];
  const dirs = (process.env["PATH"] ?? "").split(delimiter).filter((dir) => dir !== "");
  const candidates = [...(named === undefined ? [] : [named]), ...dirs.flatMap((dir) => ["chromium", "chromium-browser", "google-chrome"].map((name) => join(dir, name)))];
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Headless Chromium at `executablePath`, with what a container needs (no sandbox, no GPU). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"], timeout: 30_000 });
}
