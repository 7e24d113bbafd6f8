/**
 * Turns zod's validation issues into messages a person can act on: the source, the key path, what
 * was expected and what was found, and a "did you mean" hint for unknown keys.
 * @module
 */
import { z } from "zod";
import { didYouMean } from "./suggest.js";

/** Where a path's value came from, for the prefix of a message (`config file x.yaml`, `--port`). */
export type SourceOf = (path: readonly PropertyKey[]) => string;

/** Strips the wrappers zod puts around an object schema (default, prefault, optional). */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    if (current instanceof z.ZodDefault || current instanceof z.ZodPrefault || current instanceof z.ZodOptional) {
      current = current.unwrap() as z.ZodType;
    } else {
      return current;
    }
  }
}

/** The keys an object at `path` of `schema` accepts (empty if there is no object there). */
export function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (!(current instanceof z.ZodObject) || typeof segment !== "string") return [];
    const shape = current.shape as Record<string, z.ZodType | undefined>;
    const next = shape[segment];
    current = next === undefined ? undefined : unwrap(next);
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

/** Every key path the schema accepts, dotted (`listeners.tcp.port`). */
export function allPaths(schema: z.ZodType, prefix: readonly string[] = []): string[] {
  const current = unwrap(schema);
  if (!(current instanceof z.ZodObject)) return [];
  const shape = current.shape as Record<string, z.ZodType>;
  return Object.entries(shape).flatMap(([key, child]) => {
    const path = [...prefix, key];
    return [path.join("."), ...allPaths(child, path)];
  });
}

/** A hint for an unknown key: a close sibling, else the same key where it belongs elsewhere in the schema. */
function keyHint(key: string, path: readonly PropertyKey[], schema: z.ZodType): string {
  const sibling = didYouMean(key, knownKeys(schema, path));
  if (sibling !== "") return sibling;
  const elsewhere = allPaths(schema).filter((candidate) => candidate.split(".").pop()?.toLowerCase() === key.toLowerCase());
  return elsewhere.length === 1 && elsewhere[0] !== undefined ? ` (did you mean "${elsewhere[0]}"?)` : "";
}

/** The value at `path` in `input`, or undefined. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** `"a.b.c"`, or `top level` for the root. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "top level" : `"${path.map(String).join(".")}"`;
}

/** A short description of a value as found in the input: `string "x"`, `number 3`, `a list`. */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "string":
      return `string ${JSON.stringify(value)}`;
    case "number":
    case "boolean":
    case "bigint":
      return `${typeof value} ${String(value)}`;
    case "object":
      return "a mapping";
    case "undefined":
      return "nothing";
    case "symbol":
    case "function":
      break;
  }
  return typeof value;
}

const expectedNames: Record<string, string> = {
  int: "a whole number",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  object: "a mapping of keys to values",
};

function isPortPath(path: readonly PropertyKey[]): boolean {
  return path[path.length - 1] === "port";
}

/** One message per problem; unknown keys produce one message per key. */
export function formatIssue(issue: z.core.$ZodIssue, input: unknown, schema: z.ZodType, sourceOf: SourceOf): string[] {
  const where = formatPath(issue.path);
  const prefix = sourceOf(issue.path);
  const found = describe(valueAt(input, issue.path));
  switch (issue.code) {
    case "unrecognized_keys": {
      const place = issue.path.length === 0 ? "at top level" : `in ${where}`;
      return issue.keys.map((key) => `${prefix}: unknown key "${key}" ${place}${keyHint(key, issue.path, schema)}`);
    }
    case "invalid_type": {
      if (isPortPath(issue.path)) return [`${prefix}: ${where}: not a port number: ${found} (expected 0..65535)`];
      const expected = expectedNames[issue.expected] ?? issue.expected;
      return [`${prefix}: ${where} must be ${expected} (got ${found})`];
    }
    case "too_small":
    case "too_big": {
      if (isPortPath(issue.path)) return [`${prefix}: ${where}: not a port number: ${found} (expected 0..65535)`];
      // Never the value: a string may be a secret (a token, a key).
      if (issue.origin === "string") {
        if (issue.code === "too_big") return [`${prefix}: ${where} must be at most ${String(issue.maximum)} characters long`];
        const least = Number(issue.minimum);
        return [least <= 1 ? `${prefix}: ${where} must not be empty` : `${prefix}: ${where} must be at least ${String(least)} characters long`];
      }
      const bound = issue.code === "too_small" ? `at least ${String(issue.minimum)}` : `at most ${String(issue.maximum)}`;
      return [`${prefix}: ${where} must be ${bound} (got ${found})`];
    }
    case "invalid_value": {
      const options = issue.values.map((value) => JSON.stringify(value)).join(", ");
      const hint = typeof valueAt(input, issue.path) === "string" ? didYouMean(String(valueAt(input, issue.path)), issue.values.map(String)) : "";
      return [`${prefix}: ${where} must be one of ${options} (got ${found})${hint}`];
    }
    case "invalid_format": {
      const rule = issue.format === "starts_with" && "prefix" in issue ? `start with ${JSON.stringify(issue.prefix)}` : `be a valid ${issue.format}`;
      return [`${prefix}: ${where} must ${rule} (got ${found})`];
    }
    case "custom":
    case "invalid_union":
    case "invalid_key":
    case "invalid_element":
    case "not_multiple_of":
      return [`${prefix}: ${where}: ${issue.message}`];
  }
}

/** All messages for a failed parse, one per line. */
export function formatIssues(error: z.ZodError, input: unknown, schema: z.ZodType, sourceOf: SourceOf): string {
  return error.issues.flatMap((issue) => formatIssue(issue, input, schema, sourceOf)).join("\n");
}
