/**
 * Reading the YAML config file: a readable file, valid YAML, a mapping at the top, keys and types
 * the schema knows. Relative paths inside it are taken relative to the file's own directory, so a
 * config and its certificates can move together.
 * @module
 */
import { dirname, isAbsolute, join } from "node:path";
import { parse, YAMLParseError } from "yaml";
import { ConfigError } from "./errors.js";
import { formatIssues } from "./issues.js";
import { configSchema, type ConfigInput } from "./schema.js";

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

/** Reads, parses and validates the config file; throws a {@link ConfigError} naming the file. */
export function readConfigFile(file: string, readFile: ReadFile): ConfigInput {
  let text: string;
  try {
    text = readFile(file);
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${errorText(err)}`);
  }
  const raw = parseYaml(text, file) ?? {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(`config file ${file}: the top level must be a mapping of keys to values`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error, raw, configSchema, () => `config file ${file}`));
  return anchorPaths(parsed.data, file);
}
