/**
 * The `--help` text, generated from the override table.
 * @module
 */
import { optionSections } from "@handoff/app-kit";
import { CONFIG_ENV, OVERRIDES } from "./options.js";

/** Usage: every flag with its environment variable, and the precedence rule. */
export function usage(): string {
  const lines = [
    "Usage: handoff-broker [options]",
    "       handoff-broker passwd [--scram] <username>   print a password file line (password on stdin)",
    "",
    "Settings come from, lowest to highest precedence: built-in defaults, the config file (YAML),",
    "environment variables, then flags. The config file holds every setting; flags and",
    "environment variables cover the common ones.",
    "",
    ...optionSections(OVERRIDES, CONFIG_ENV),
    "",
    "Booleans accept true/false, 1/0, yes/no, on/off. Relative paths in a config file are",
    "resolved against the file's directory; those in flags and variables against the working one.",
  ];
  return lines.join("\n");
}
