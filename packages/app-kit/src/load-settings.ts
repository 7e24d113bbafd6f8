/**
 * Loading an app's settings in layers: defaults < config file < environment < flags. The merged
 * settings are validated by the app's schema once, so an error names where its value came from
 * (`--port`, `HANDOFF_RELAY_PORT`, `config file relay.yaml`), the key path and what was expected.
 * @module
 */
import { parseArgs } from "node:util";
import type { z } from "zod";
import { ConfigError } from "./config-error.js";
import { formatIssues, type SourceOf } from "./issues.js";
import { isSwitch, parseOptionValue, type OptionValue, type OverrideOption } from "./options.js";
import { didYouMean } from "./suggest.js";

/** Environment variables (only those under the app's prefix, and deprecated names, are read). */
export type Env = Readonly<Record<string, string | undefined>>;

/** One value given by a flag or a variable. */
export interface Override {
  readonly path: readonly string[];
  /** `--port` or `HANDOFF_BROKER_PORT`. */
  readonly source: string;
  readonly value: OptionValue;
}

/** What an app's loader is made of. */
export interface SettingsSpec<S extends z.ZodType> {
  /** The app's flags and variables. */
  readonly overrides: readonly OverrideOption[];
  /** Prefix of every variable the app reads (`HANDOFF_BROKER_`); an unknown one under it is an error. */
  readonly envPrefix: string;
  /** The variable naming the config file (the flag is `--config`). */
  readonly configEnv: string;
  /** Validates the merged settings. */
  readonly schema: S;
  /** Reads and validates the config file into raw settings (overrides are set on a copy). */
  readonly readConfigFile: (file: string) => unknown;
  /** The `--help` text. */
  readonly usage: () => string;
  /** Called before each override is set on the merged settings (the broker's `--host` clears per-listener hosts). */
  readonly beforeOverride?: (merged: Record<string, unknown>, override: Override) => void;
  /** Told once per deprecated name in use. */
  readonly warn?: (message: string) => void;
}

/** The merged, validated settings and where each came from. */
export interface Loaded<T> {
  readonly kind: "run";
  readonly settings: T;
  /** The config file, if one was given. */
  readonly file: string | undefined;
  /** Where the value at a key path came from, for messages about rules that span keys. */
  readonly sourceOf: SourceOf;
}

/** What the command line asks for: run with these settings, or print help. */
export type LoadedOrHelp<T> = Loaded<T> | { readonly kind: "help"; readonly text: string };

type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

function parseFlags(argv: readonly string[], overrides: readonly OverrideOption[]): FlagValues {
  const options: Record<string, { type: "boolean" | "string"; multiple?: boolean }> = { help: { type: "boolean" }, config: { type: "string" } };
  for (const option of overrides) {
    if (option.flag !== undefined) options[option.flag] = { type: isSwitch(option) ? "boolean" : "string", ...(option.kind === "list" ? { multiple: true } : {}) };
  }
  const flagNames = Object.keys(options).map((name) => `--${name}`);
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
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
function checkEnvNames(env: Env, spec: SettingsSpec<z.ZodType>): void {
  const known = [spec.configEnv, ...spec.overrides.flatMap((option) => [option.env, ...(option.deprecatedEnv === undefined ? [] : [option.deprecatedEnv])])];
  for (const name of Object.keys(env)) {
    if (name.startsWith(spec.envPrefix) && !known.includes(name)) {
      throw new ConfigError(`unknown environment variable ${name}${didYouMean(name, known)}`);
    }
  }
}

function fromEnv(option: OverrideOption, env: Env, warn: (message: string) => void): { readonly text: string; readonly source: string } | undefined {
  const current = env[option.env];
  const old = option.deprecatedEnv === undefined ? undefined : env[option.deprecatedEnv];
  if (old !== undefined && option.deprecatedEnv !== undefined) {
    warn(`${option.deprecatedEnv} is deprecated and will go away: use ${option.env}${current === undefined ? "" : ` (set too, and used instead)`}`);
  }
  if (current !== undefined) return { text: current, source: option.env };
  return old === undefined || option.deprecatedEnv === undefined ? undefined : { text: old, source: option.deprecatedEnv };
}

function collectOverrides(values: FlagValues, env: Env, spec: SettingsSpec<z.ZodType>): Override[] {
  const overrides: Override[] = [];
  const warn = spec.warn ?? (() => undefined);
  // Environment first, flags second: later overrides win.
  for (const option of spec.overrides) {
    const given = fromEnv(option, env, warn);
    if (given !== undefined) overrides.push({ path: option.path, source: given.source, value: parseOptionValue(option, given.text, given.source) });
  }
  for (const option of spec.overrides) {
    const given = option.flag === undefined ? undefined : values[option.flag];
    if (given === undefined) continue;
    const source = `--${option.flag ?? ""}`;
    const value = Array.isArray(given)
      ? given.map((item) => String(parseOptionValue({ ...option, kind: "string" }, String(item), source)))
      : typeof given === "boolean"
        ? given
        : parseOptionValue(option, given, source);
    overrides.push({ path: option.path, source, value });
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

function startsWith(path: readonly PropertyKey[], prefix: readonly string[]): boolean {
  return prefix.every((segment, i) => path[i] === segment) || path.every((segment, i) => prefix[i] === segment);
}

/**
 * Loads the settings from the command line (`argv` without the node and script entries), the
 * environment and the config file. Throws a {@link ConfigError} with a message that names the
 * source and the key of every problem.
 */
export function loadSettings<S extends z.ZodType>(argv: readonly string[], env: Env, spec: SettingsSpec<S>): LoadedOrHelp<z.output<S>> {
  const values = parseFlags(argv, spec.overrides);
  if (values["help"] === true) return { kind: "help", text: spec.usage() };
  checkEnvNames(env, spec);

  const flagFile = values["config"];
  const file = typeof flagFile === "string" ? flagFile : env[spec.configEnv];
  if (file === "") throw new ConfigError(`${typeof flagFile === "string" ? "--config" : spec.configEnv}: must not be empty`);
  const base = file === undefined ? {} : spec.readConfigFile(file);
  const fileLabel = file === undefined ? "configuration" : `config file ${file}`;

  const overrides = collectOverrides(values, env, spec);
  const merged = structuredClone(base) as Record<string, unknown>;
  for (const override of overrides) {
    spec.beforeOverride?.(merged, override);
    setAt(merged, override.path, override.value);
  }
  // The last override touching a path is where its value came from; anything else is the file's.
  const sourceOf = (path: readonly PropertyKey[]): string => overrides.findLast((override) => startsWith(path, override.path))?.source ?? fileLabel;

  const parsed = spec.schema.safeParse(merged);
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error, merged, spec.schema, sourceOf));
  return { kind: "run", settings: parsed.data, file, sourceOf };
}
