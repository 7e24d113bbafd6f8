/**
 * The broker's version, from its package.json (one level above both src/ and dist/).
 * @module
 */
import { readFileSync } from "node:fs";

/** The broker's version (its package.json), as `$SYS/broker/version` and the logs report it. */
export const VERSION = packageVersion();

function packageVersion(): string {
  const parsed: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const version = typeof parsed === "object" && parsed !== null && "version" in parsed ? parsed.version : undefined;
  return typeof version === "string" ? version : "unknown";
}
