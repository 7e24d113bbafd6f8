import { errors, jwtVerify } from "jose";
import { joinPath, normalizePath, stripPathPrefix } from "@handoff/moq-resume/lite";
import { ALLOW_ALL, mergePermissions, normalizePermissions, type Permissions } from "@handoff/moq-relay";

/** How the relay authenticates sessions. */
export interface AuthConfig {
  /** HS256 secret (UTF-8 bytes of the string); undefined = no auth, everyone may do everything. */
  readonly key: string | undefined;
  /** Paths anyone may subscribe to without a token. */
  readonly publicSubscribe: readonly string[];
  /** Paths anyone may publish to without a token. */
  readonly publicPublish: readonly string[];
  /** Accepted `aud` values; empty or absent: not checked. */
  readonly audience?: readonly string[];
  /** Accepted `iss` values; empty or absent: not checked. */
  readonly issuer?: readonly string[];
  /** Refuse a token without `exp` (default true: a token that never expires must be asked for). */
  readonly requireExp?: boolean;
}

/** The outcome of authenticating one connection. */
export type AuthResult =
  | {
      readonly ok: true;
      /** The connection's path scope (the URL path). */
      readonly root: string;
      readonly permissions: Permissions;
      /** When the token expires (ms since the epoch), if it does. */
      readonly expiresAt: number | undefined;
    }
  | { readonly ok: false; readonly status: 401 | 403; readonly reason: string };

/**
 * The claims the relay reads. `root` scopes the token; `publish`/`subscribe` (aliases `put`/`get`,
 * as moq-token names them) are path prefixes relative to `root`; `exp` is the usual JWT expiry.
 */
interface Claims {
  readonly root: string;
  readonly publish: readonly string[];
  readonly subscribe: readonly string[];
}

function strings(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((v): v is string => typeof v === "string")) return value;
  return undefined;
}

function readClaims(payload: Record<string, unknown>): Claims | string {
  const root = payload["root"] ?? "";
  if (typeof root !== "string") return "claim root must be a string";
  const publish = strings(payload["publish"] ?? payload["put"] ?? []);
  const subscribe = strings(payload["subscribe"] ?? payload["get"] ?? []);
  if (publish === undefined || subscribe === undefined) return "claims publish/subscribe must be strings or lists of strings";
  return { root: normalizePath(root), publish, subscribe };
}

/** Narrows absolute prefixes to those inside `root` (a grant on `a` seen from root `a/b` is `a/b`). */
function within(root: string, prefixes: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of prefixes) {
    if (stripPathPrefix(root, p) !== undefined) out.push(p);
    else if (stripPathPrefix(p, root) !== undefined) out.push(root);
  }
  return out;
}

function tokenRefusal(err: unknown): string {
  if (err instanceof errors.JWTExpired) return "token expired";
  if (err instanceof errors.JWTClaimValidationFailed) return `token claim ${err.claim} refused: ${err.reason}`;
  return "invalid token";
}

/**
 * Authenticates a connection to `path` with an optional `?jwt=` token. Without a configured key
 * everything is allowed. With one, a missing token gets the public paths (401 if there are none);
 * a bad or expired token is 401; a token whose root does not cover the path is 403.
 */
export async function authenticate(config: AuthConfig, path: string, token: string | undefined, nowMs: number): Promise<AuthResult> {
  const root = normalizePath(path);
  const anonymous = normalizePermissions({ publish: config.publicPublish, subscribe: config.publicSubscribe });
  if (config.key === undefined) return { ok: true, root, permissions: ALLOW_ALL, expiresAt: undefined };
  if (token === undefined || token === "") {
    const permissions = { publish: within(root, anonymous.publish), subscribe: within(root, anonymous.subscribe) };
    if (permissions.publish.length === 0 && permissions.subscribe.length === 0) {
      return { ok: false, status: 401, reason: "a token is required" };
    }
    return { ok: true, root, permissions, expiresAt: undefined };
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(config.key), {
      algorithms: ["HS256"],
      currentDate: new Date(nowMs),
      ...(config.audience === undefined || config.audience.length === 0 ? {} : { audience: [...config.audience] }),
      ...(config.issuer === undefined || config.issuer.length === 0 ? {} : { issuer: [...config.issuer] }),
      ...(config.requireExp === false ? {} : { requiredClaims: ["exp"] }),
    }));
  } catch (err) {
    return { ok: false, status: 401, reason: tokenRefusal(err) };
  }
  const claims = readClaims(payload);
  if (typeof claims === "string") return { ok: false, status: 401, reason: claims };
  if (stripPathPrefix(claims.root, root) === undefined) {
    return { ok: false, status: 403, reason: `token root "${claims.root}" does not cover "${root}"` };
  }
  const granted = {
    publish: within(root, claims.publish.map((p) => joinPath(claims.root, p))),
    subscribe: within(root, claims.subscribe.map((p) => joinPath(claims.root, p))),
  };
  const permissions = mergePermissions(granted, {
    publish: within(root, anonymous.publish),
    subscribe: within(root, anonymous.subscribe),
  });
  if (permissions.publish.length === 0 && permissions.subscribe.length === 0) {
    return { ok: false, status: 403, reason: "token grants nothing under this path" };
  }
  const exp = payload["exp"];
  return { ok: true, root, permissions, expiresAt: typeof exp === "number" ? exp * 1000 : undefined };
}

