/**
 * The settings an app takes from a command-line flag or an environment variable: one table per
 * app drives its argument parser, its environment reader and its `--help` text, so they cannot
 * drift apart. Every variable is the app's prefix plus the flag in upper snake case
 * (`--tcp-port` → `HANDOFF_RELAY_TCP_PORT`).
 * @module
 */
import { ConfigError } from "./config-error.js";
import { didYouMean } from "./suggest.js";

/**
 * How an option's text becomes a setting: a port (0..65535), a non-empty string, any text (empty
 * included), a boolean, a whole number of milliseconds, a list (a repeatable flag, or a comma-separated variable), or one
 * of a fixed set of words (`what` names them in errors: "log level").
 */
export type OptionKind = "port" | "string" | "text" | "boolean" | "ms" | "list" | { readonly oneOf: readonly string[]; readonly what: string };

/** A setting reachable from the command line and the environment. */
export interface OverrideOption {
  /** Flag name without the leading `--`; absent for a setting only the environment gives (a secret). */
  readonly flag?: string;
  /** Environment variable name. */
  readonly env: string;
  /** A former name of the variable, still read (the new one wins) with a deprecation warning. */
  readonly deprecatedEnv?: string;
  /** Where the value goes in the settings. */
  readonly path: readonly string[];
  /** How the text is parsed. */
  readonly kind: OptionKind;
  /** Placeholder shown in the usage text (empty for a boolean switch, which takes no value). */
  readonly arg: string;
  /** One line of help. */
  readonly help: string;
}

/** A parsed option value. */
export type OptionValue = string | number | boolean | readonly string[];

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

/** Parses the text of `option` given under `source` (`--port`, `HANDOFF_BROKER_PORT`). */
export function parseOptionValue(option: OverrideOption, text: string, source: string): OptionValue {
  const kind = option.kind;
  if (typeof kind === "object") return oneOf(text, kind.oneOf, source, kind.what);
  switch (kind) {
    case "port": {
      const trimmed = text.trim();
      if (!/^\d{1,5}$/.test(trimmed) || Number(trimmed) > 65_535) {
        throw new ConfigError(`${source}: not a port number: ${JSON.stringify(text)} (expected 0..65535; 0 picks a free port)`);
      }
      return Number(trimmed);
    }
    case "boolean": {
      const lower = text.trim().toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      throw new ConfigError(`${source}: expected true or false, got ${JSON.stringify(text)}`);
    }
    case "ms": {
      const trimmed = text.trim();
      if (!/^\d{1,15}$/.test(trimmed)) throw new ConfigError(`${source}: not milliseconds: ${JSON.stringify(text)} (expected a whole number, 0 or more)`);
      return Number(trimmed);
    }
    case "list":
      return text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== "");
    case "text":
      return text;
    case "string":
      if (text === "") throw new ConfigError(`${source}: must not be empty`);
      return text;
  }
}

/** `text` when it is one of `allowed`; else a {@link ConfigError} listing them, with a "did you mean". */
export function oneOf(text: string, allowed: readonly string[], source: string, what: string): string {
  if (allowed.includes(text)) return text;
  throw new ConfigError(`${source}: unknown ${what} ${JSON.stringify(text)}, expected one of ${allowed.join(", ")}${didYouMean(text, allowed)}`);
}

/** Whether the option is a flag that takes no value (`--log-pretty`). */
export function isSwitch(option: OverrideOption): boolean {
  return option.kind === "boolean" && option.arg === "";
}
