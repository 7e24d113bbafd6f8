/**
 * Reading the YAML config file (app-kit's reader, against the broker's schema). Relative paths
 * inside it are taken relative to the file's own directory, so a config and its certificates can
 * move together.
 * @module
 */
import { dirname, isAbsolute, join } from "node:path";
import { readYamlConfig, type ReadFile } from "@handoff/app-kit";
import { configSchema, type ConfigInput } from "./schema.js";

/** Reads a file as UTF-8 text (injected so tests need no filesystem). */
export type { ReadFile } from "@handoff/app-kit";

const relativePaths = [
  ["dataDir"],
  ["auth", "passwordFile"],
  ["auth", "aclFile"],
  ...(["tls", "wss"] as const).flatMap((listener) => [
    ["listeners", listener, "cert"],
    ["listeners", listener, "key"],
    ["listeners", listener, "ca"],
  ]),
] as const;

/** Rewrites the file paths in `input` that are relative so they are relative to `file`'s directory. */
function anchorPaths(input: ConfigInput, file: string): ConfigInput {
  const base = dirname(file);
  const copy = structuredClone(input) as unknown as Record<string, Record<string, unknown>>;
  for (const path of relativePaths) {
    let holder: Record<string, unknown> | undefined = copy;
    for (const segment of path.slice(0, -1)) holder = holder?.[segment] as Record<string, unknown> | undefined;
    const key = path[path.length - 1];
    if (holder === undefined || key === undefined) continue;
    const value = holder[key];
    if (typeof value === "string" && !isAbsolute(value)) holder[key] = join(base, value);
  }
  return copy as unknown as ConfigInput;
}

/** Reads, parses and validates the config file; throws a `ConfigError` naming the file. */
export function readConfigFile(file: string, readFile: ReadFile): ConfigInput {
  return anchorPaths(readYamlConfig(file, readFile, configSchema), file);
}
