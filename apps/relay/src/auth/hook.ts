/**
 * An embedding service's own authentication, next to the JWT check: asked first for every
 * WebSocket session; its grant, or its refusal, is final, and `undefined` leaves the decision to
 * the token (and the anonymous public paths) as without a hook.
 * @module
 */
import type { IncomingHttpHeaders } from "node:http";
import { joinPath, normalizePath } from "@handoff/moq-resume/lite";
import { authenticate, type AuthConfig, type AuthResult } from "./jwt.js";
import { normalizePermissions } from "@handoff/moq-relay";

/** What the hook is told of a WebSocket session request. */
export interface RelayAuthRequest {
  /** The path the session connects to (its root), normalised. */
  readonly path: string;
  /** The `?jwt=` query value, if any. */
  readonly token: string | undefined;
  /** The upgrade request's headers (cookies, authorization…). */
  readonly headers: IncomingHttpHeaders;
  /** `host:port` of the peer. */
  readonly remote: string;
}

/**
 * The hook's verdict: a grant (path prefixes relative to the session's path; `""` is all of it),
 * a refusal (HTTP 401 or 403 on the upgrade), or `undefined` to check the JWT as usual.
 */
export type RelayAuthVerdict =
  | undefined
  | { readonly ok: true; readonly publish: readonly string[]; readonly subscribe: readonly string[]; readonly expiresAt?: number }
  | { readonly ok: false; readonly status: 401 | 403; readonly reason: string };

/** A service's authentication hook (async allowed). */
export type RelayAuthHook = (request: RelayAuthRequest) => RelayAuthVerdict | Promise<RelayAuthVerdict>;

/** The hook's verdict on `request`, falling back to the JWT check when it has none. */
export async function authenticateWithHook(hook: RelayAuthHook, config: AuthConfig, request: RelayAuthRequest, nowMs: number): Promise<AuthResult> {
  const root = normalizePath(request.path);
  const verdict = await hook({ ...request, path: root });
  if (verdict === undefined) return authenticate(config, request.path, request.token, nowMs);
  if (!verdict.ok) return verdict;
  const permissions = normalizePermissions({ publish: verdict.publish.map((p) => joinPath(root, p)), subscribe: verdict.subscribe.map((p) => joinPath(root, p)) });
  return { ok: true, root, permissions, expiresAt: verdict.expiresAt };
}
