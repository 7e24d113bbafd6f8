/**
 * Finding a Chromium for the apps' browser tests (the broker's dashboard, the relay's demo page).
 * @module
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** Chromium from HANDOFF_CHROMIUM, or the first chromium/chrome on PATH; undefined when there is none (the test then skips with a message). */
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
