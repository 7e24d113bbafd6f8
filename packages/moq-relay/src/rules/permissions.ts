import { normalizePath, stripPathPrefix } from "@handoff/moq-resume/lite";

/**
 * What one session may do, as absolute path prefixes (normalised, "" = everything). A path is
 * allowed when it lies under one of the prefixes, on part boundaries.
 */
export interface Permissions {
  /** Prefixes the session may publish (announce) under. */
  readonly publish: readonly string[];
  /** Prefixes the session may subscribe to and discover under. */
  readonly subscribe: readonly string[];
}

/** Full access: what a relay without an auth key gives everyone. */
export const ALLOW_ALL: Permissions = { publish: [""], subscribe: [""] };

/** No access at all. */
export const DENY_ALL: Permissions = { publish: [], subscribe: [] };

/** Whether `path` lies under one of `prefixes`. */
export function allowed(prefixes: readonly string[], path: string): boolean {
  return prefixes.some((prefix) => stripPathPrefix(prefix, path) !== undefined);
}

/**
 * Whether anything under `prefix` may be allowed: the prefix is under a granted one, or a
 * granted one is under it (an announce request for `""` with a grant on `room` still sees `room/*`).
 */
export function overlaps(prefixes: readonly string[], prefix: string): boolean {
  return prefixes.some((granted) => stripPathPrefix(granted, prefix) !== undefined || stripPathPrefix(prefix, granted) !== undefined);
}

/** The union of two grants (a token's scopes plus the anonymous public paths). */
export function mergePermissions(a: Permissions, b: Permissions): Permissions {
  return { publish: [...new Set([...a.publish, ...b.publish])], subscribe: [...new Set([...a.subscribe, ...b.subscribe])] };
}

/** Normalises every prefix of a grant. */
export function normalizePermissions(p: Permissions): Permissions {
  return { publish: p.publish.map(normalizePath), subscribe: p.subscribe.map(normalizePath) };
}
