/**
 * The options and environment sections of an app's `--help` text, from its option table.
 * @module
 */
import type { OverrideOption } from "./options.js";

function row(left: string, right: string): string {
  return `  ${left.padEnd(30)} ${right}`;
}

/** The flag as written in the usage text: `--port <n>`, or the variable for an environment-only setting. */
function flagText(option: OverrideOption): string {
  if (option.flag === undefined) return `(env ${option.env})`;
  return `--${option.flag}${option.arg === "" ? "" : ` ${option.arg}`}`;
}

/**
 * `Options:` (help, config, then every flag) and `Environment variables:` (each variable with the
 * flag it stands for, deprecated names last), one line each.
 */
export function optionSections(overrides: readonly OverrideOption[], configEnv: string): string[] {
  const deprecated = overrides.filter((option) => option.deprecatedEnv !== undefined);
  return [
    "Options:",
    row("--help", "print this and exit"),
    row("--config <file>", `YAML config file (env ${configEnv})`),
    ...overrides.filter((option) => option.flag !== undefined).map((option) => row(flagText(option), option.help)),
    "",
    "Environment variables:",
    row(configEnv, "--config"),
    ...overrides.map((option) => row(option.env, option.flag === undefined ? option.help : `--${option.flag}`)),
    ...deprecated.map((option) => row(option.deprecatedEnv ?? "", `deprecated name of ${option.env}`)),
  ];
}
