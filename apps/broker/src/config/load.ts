/**
 * Loading the broker's settings: defaults < config file < environment < flags (app-kit's layered
 * loader over the broker's schema and option table), then the rules that span keys.
 * @module
 */
import { loadSettings, type Env, type Override } from "@handoff/app-kit";
import { ConfigError } from "./errors.js";
import { readConfigFile, type ReadFile } from "./file.js";
import { CONFIG_ENV, ENV_PREFIX, OVERRIDES } from "./options.js";
import { resolveConfig } from "./resolve.js";
import { configSchema } from "./schema.js";
import type { BrokerConfig } from "./types.js";
import { usage } from "./usage.js";

/** What the command line asks for: run with these settings, or print help. */
export type LoadResult = { readonly kind: "run"; readonly config: BrokerConfig } | { readonly kind: "help"; readonly text: string };

/** Environment variables (only the `HANDOFF_BROKER_*` ones are read). */
export type { Env } from "@handoff/app-kit";

/** `--host` means "bind everything here", so it also replaces hosts the file set per listener. */
function clearListenerHosts(target: Record<string, unknown>, override: Override): void {
  if (override.path.length !== 1 || override.path[0] !== "host") return;
  const listeners = target["listeners"] as Record<string, Record<string, unknown> | undefined> | undefined;
  for (const name of ["tcp", "tls", "ws", "wss"]) delete listeners?.[name]?.["host"];
  delete (target["http"] as Record<string, unknown> | undefined)?.["host"];
}

/** A flag for `storage.*` over a file's former `storage: <kind>` keeps that kind. */
function storageAsSection(target: Record<string, unknown>, override: Override): void {
  const kind = target["storage"];
  if (override.path[0] === "storage" && typeof kind === "string") target["storage"] = { kind };
}

/**
 * Loads the settings from the command line (`argv` without the node and script entries), the
 * environment and the config file (read through `readFile`, injected so tests need no disk).
 * Throws a {@link ConfigError} with a message that names the source and the key of every problem.
 */
export function loadConfig(argv: readonly string[], env: Env, readFile: ReadFile): LoadResult {
  const loaded = loadSettings(argv, env, {
    overrides: OVERRIDES,
    envPrefix: ENV_PREFIX,
    configEnv: CONFIG_ENV,
    schema: configSchema,
    readConfigFile: (file) => readConfigFile(file, readFile),
    usage,
    beforeOverride: (target, override) => {
      clearListenerHosts(target, override);
      storageAsSection(target, override);
    },
  });
  if (loaded.kind === "help") return loaded;
  const resolved = resolveConfig(loaded.settings, loaded.file);
  if (!resolved.ok) throw new ConfigError(resolved.problems.map((problem) => `${loaded.sourceOf(problem.path)}: ${problem.message}`).join("\n"));
  return { kind: "run", config: resolved.config };
}
