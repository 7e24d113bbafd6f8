import { encodeError } from "./errors.js";
import type { LiteLimits } from "./limits.js";
import type { ByteWriter } from "./writer.js";

/**
 * Normalises a broadcast path as the reference does (`Path::new`): leading and trailing
 * slashes are trimmed and runs of slashes collapse to one, so `/a//b/` and `a/b` are equal.
 */
export function normalizePath(path: string): string {
  if (!path.startsWith("/") && !path.endsWith("/") && !path.includes("//")) return path;
  return path.replace(/\/+/g, "/").replace(/^\//, "").replace(/\/$/, "");
}

/** Number of slash-separated parts of a normalised path (0 for the empty path). */
export function pathParts(path: string): number {
  if (path === "") return 0;
  let parts = 1;
  for (let at = path.indexOf("/"); at !== -1; at = path.indexOf("/", at + 1)) parts++;
  return parts;
}

/** Joins a prefix and a suffix with one slash; either may be empty. */
export function joinPath(prefix: string, suffix: string): string {
  const a = normalizePath(prefix);
  const b = normalizePath(suffix);
  if (a === "") return b;
  if (b === "") return a;
  return `${a}/${b}`;
}

/**
 * The suffix of `path` under `prefix`, respecting part boundaries (`foo` is not a prefix of
 * `foobar`), or undefined when `prefix` does not match.
 */
export function stripPathPrefix(prefix: string, path: string): string | undefined {
  const p = normalizePath(prefix);
  const full = normalizePath(path);
  if (p === "") return full;
  if (!full.startsWith(p)) return undefined;
  if (full.length === p.length) return "";
  return full[p.length] === "/" ? full.slice(p.length + 1) : undefined;
}

/** Writes a path the way the reference does: normalised, part count bounded. */
export function writePath(w: ByteWriter, path: string, limits: LiteLimits): void {
  const normal = normalizePath(path);
  if (pathParts(normal) > limits.maxPathParts) {
    throw encodeError("too_many", `path has more than ${limits.maxPathParts} parts`);
  }
  w.string(normal);
}
