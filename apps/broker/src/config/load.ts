/**
 * Loading the broker's settings: defaults < config file < environment < flags.
 * @module
 */
import { parseArgs } from "node:util";
import { ConfigError } from "./errors.js";
import { readConfigFile, type ReadFile } from "./file.js";
import { formatIssues } from "./issues.js";
import { CONFIG_ENV, ENV_PREFIX, OVERRIDES, parseOptionValue } from "./options.js";
import { resolveConfig } from "./resolve.js";
import { configSchema } from "./schema.js";
import { didYouMean } from "./suggest.js";
import type { BrokerConfig } from "./types.js";
import { usage } from "./usage.js";

/** What the command line asks for: run with these settings, or print help. */
export type LoadResult = { readonly kind: "run"; readonly config: BrokerConfig } | { readonly kind: "help"; readonly text: string };

/** Environment variables (only the `HANDOFF_BROKER_*` ones are read). */
export type Env = Readonly<Record<string, string | undefined>>;

interface Override {
  readonly path: readonly string[];
  readonly source: string;
  readonly value: string | number | boolean;
}

const flagOptions = {
  help: { type: "boolean" },
  config: { type: "string" },
  ...Object.fromEntries(OVERRIDES.map((option) => [option.flag, { type: option.kind === "boolean" && option.arg === "" ? "boolean" : "string" }])),
} as const satisfies Record<string, { type: "boolean" | "string" }>;

const flagNames = Object.keys(flagOptions).map((name) => `--${name}`);

function parseFlags(argv: readonly string[]): Record<string, string | boolean | undefined> {
  try {
    return parseArgs({ args: [...argv], options: flagOptions, strict: true, allowPositionals: false }).values;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const code = (err as { code?: unknown }).code;
    const flag = /'(-[^' ]*)/.exec(message)?.[1];
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag !== undefined) {
      throw new ConfigError(`unknown flag ${flag}${didYouMean(flag, flagNames)}; --help lists them`);
    }
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && flag !== undefined) {
      throw new ConfigError(`${flag} needs a value; --help lists the flags`);
    }
    if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
      throw new ConfigError(`unexpected argument ${JSON.stringify(argv.find((arg) => !arg.startsWith("-")) ?? "")}; --help lists the flags`);
    }
    throw new ConfigError(`${message}; --help lists the flags`);
  }
}

/** A misspelt variable would otherwise be ignored without a trace. */
function checkEnvNames(env: Env): void {
  const known = [CONFIG_ENV, ...OVERRIDES.map((option) => option.env)];
  for (const name of Object.keys(env)) {
    if (name.startsWith(ENV_PREFIX) && !known.includes(name)) {
      throw new ConfigError(`unknown environment variable ${name}${didYouMean(name, known)}`);
    }
  }
}

function collectOverrides(values: Record<string, string | boolean | undefined>, env: Env): Override[] {
  const overrides: Override[] = [];
  // Environment first, flags second: later overrides win.
  for (const option of OVERRIDES) {
    const text = env[option.env];
    if (text !== undefined) overrides.push({ path: option.path, source: option.env, value: parseOptionValue(option, text, option.env) });
  }
  for (const option of OVERRIDES) {
    const given = values[option.flag];
    if (given === undefined) continue;
    const source = `--${option.flag}`;
    overrides.push({ path: option.path, source, value: typeof given === "boolean" ? given : parseOptionValue(option, given, source) });
  }
  return overrides;
}

function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let holder = target;
  for (const segment of path.slice(0, -1)) {
    const next = holder[segment];
    if (typeof next === "object" && next !== null) holder = next as Record<string, unknown>;
    else {
      const created: Record<string, unknown> = {};
      holder[segment] = created;
      holder = created;
    }
  }
  const key = path[path.length - 1];
  if (key !== undefined) holder[key] = value;
}

/** `--host` means "bind everything here", so it also replaces hosts the file set per listener. */
function clearListenerHosts(target: Record<string, unknown>): void {
  const listeners = target["listeners"] as Record<string, Record<string, unknown> | undefined> | undefined;
  for (const name of ["tcp", "tls", "ws", "wss"]) delete listeners?.[name]?.["host"];
  delete (target["http"] as Record<string, unknown> | undefined)?.["host"];
}

function startsWith(path: readonly PropertyKey[], prefix: readonly string[]): boolean {
  return prefix.every((segment, i) => path[i] === segment) || path.every((segment, i) => prefix[i] === segment);
}

/**
 * Loads the settings from the command line (`argv` without the node and script entries), the
 * environment and the config file (read through `readFile`, injected so tests need no disk).
 * Throws a {@link ConfigError} with a message that names the source and the key of every problem.
 */
export function loadConfig(argv: readonly string[], env: Env, readFile: ReadFile): LoadResult {
  const values = parseFlags(argv);
  if (values["help"] === true) return { kind: "help", text: usage() };
  checkEnvNames(env);

  const flagFile = values["config"];
  const file = typeof flagFile === "string" ? flagFile : env[CONFIG_ENV];
  if (file === "") throw new ConfigError(`${typeof flagFile === "string" ? "--config" : CONFIG_ENV}: must not be empty`);
  const base = file === undefined ? configSchema.parse({}) : readConfigFile(file, readFile);
  const fileLabel = file === undefined ? "configuration" : `config file ${file}`;

  const overrides = collectOverrides(values, env);
  const merged = structuredClone(base) as unknown as Record<string, unknown>;
  for (const override of overrides) {
    if (override.path.length === 1 && override.path[0] === "host") clearListenerHosts(merged);
    setAt(merged, override.path, override.value);
  }
  // The last override touching a path is where its value came from; anything else is the file's.
  const sourceOf = (path: readonly PropertyKey[]): string =>
    overrides.findLast((override) => startsWith(path, override.path))?.source ?? fileLabel;

  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error, merged, configSchema, sourceOf));
  const resolved = resolveConfig(parsed.data, file);
  if (!resolved.ok) throw new ConfigError(resolved.problems.map((problem) => `${sourceOf(problem.path)}: ${problem.message}`).join("\n"));
  return { kind: "run", config: resolved.config };
}
