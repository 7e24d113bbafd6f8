/**
 * Reading a YAML config file: a readable file, valid YAML, a mapping at the top, keys and types
 * the app's schema knows. Errors name the file, the key path and what was expected.
 * @module
 */
import { parse, YAMLParseError } from "yaml";
import type { z } from "zod";
import { ConfigError } from "./config-error.js";
import { formatIssues } from "./issues.js";

/** Reads a file as UTF-8 text (injected so tests need no filesystem). */
export type ReadFile = (path: string) => string;

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Parses the YAML text of `file` into raw settings (not yet validated). */
export function parseYaml(text: string, file: string): unknown {
  try {
    // `uniqueKeys` (the default) makes a key written twice an error rather than a silent override.
    return parse(text, { prettyErrors: true, uniqueKeys: true }) as unknown;
  } catch (err) {
    if (err instanceof YAMLParseError) {
      const [first] = err.message.split("\n");
      throw new ConfigError(`config file ${file}: invalid YAML: ${first ?? err.message}`);
    }
    throw new ConfigError(`config file ${file}: invalid YAML: ${errorText(err)}`);
  }
}

/** Parses and validates the YAML `text` of `file` against `schema`; throws a {@link ConfigError} naming the file. */
export function parseYamlConfig<S extends z.ZodType>(text: string, file: string, schema: S): z.output<S> {
  const raw = parseYaml(text, file) ?? {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(`config file ${file}: the top level must be a mapping of keys to values`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error, raw, schema, () => `config file ${file}`));
  return parsed.data;
}

/** Reads `file` through `readFile`, then {@link parseYamlConfig}. */
export function readYamlConfig<S extends z.ZodType>(file: string, readFile: ReadFile, schema: S): z.output<S> {
  let text: string;
  try {
    text = readFile(file);
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${errorText(err)}`);
  }
  return parseYamlConfig(text, file, schema);
}
