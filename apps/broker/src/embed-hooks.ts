/**
 * The access hooks an embedding service supplies as functions, laid over the config's own
 * (password file, ACL): a service's `authenticate` replaces the password check; its
 * `authorizePublish` / `authorizeSubscribe` are asked after the ACL, and both must allow.
 * @module
 */
import { ReasonCode } from "@handoff/mqtt-router";
import type { Logger } from "pino";
import type { AccessControl, AuthVerdict, ClientIdentity } from "./mqtt/access.js";

/** The credentials of a CONNECT, as a service's `authenticate` hook sees them. */
export interface AuthenticateRequest {
  readonly clientId: string;
  readonly username?: string;
  readonly password?: Uint8Array;
}

/**
 * A hook's verdict: true (let in, with the user name the client sent), false (CONNACK 0x86 Bad
 * user name or password), or an object naming the user name to record or the refusal's reason code.
 */
export type AuthenticateResult =
  | boolean
  | { readonly ok: true; readonly username?: string }
  | { readonly ok: false; readonly reasonCode?: number; readonly reason?: string };

/** Authentication and authorization hooks of an embedded broker (each optional). */
export interface BrokerHooks {
  /**
   * Decides a CONNECT (async allowed; nothing is acknowledged until it settles). A hook that
   * throws or rejects refuses the client with 0x87 Not authorized, and is logged.
   */
  readonly authenticate?: (request: AuthenticateRequest) => AuthenticateResult | Promise<AuthenticateResult>;
  /** Whether `client` may publish to `topic` (asked per PUBLISH and for the will; false: 0x87). */
  readonly authorizePublish?: (client: ClientIdentity, topic: string) => boolean;
  /** Whether `client` may subscribe to `filter` (false: that filter's SUBACK is 0x87). */
  readonly authorizeSubscribe?: (client: ClientIdentity, filter: string) => boolean;
}

function verdictOf(request: AuthenticateRequest, result: AuthenticateResult): AuthVerdict {
  const identity = (username: string | undefined): ClientIdentity => ({ clientId: request.clientId, ...(username === undefined ? {} : { username }) });
  if (result === true) return { ok: true, identity: identity(request.username) };
  if (result === false) return { ok: false, reasonCode: ReasonCode.BadUserNameOrPassword, reason: "refused by the authenticate hook" };
  if (result.ok) return { ok: true, identity: identity(result.username ?? request.username) };
  return { ok: false, reasonCode: result.reasonCode ?? ReasonCode.NotAuthorized, reason: result.reason ?? "refused by the authenticate hook" };
}

/** `base` with the service's hooks laid over it. */
export function withHooks(base: AccessControl, hooks: BrokerHooks, log: Logger): AccessControl {
  const { authenticate, authorizePublish, authorizeSubscribe } = hooks;
  return {
    ...base,
    ...(authenticate === undefined
      ? {}
      : {
          authenticate: async (request): Promise<AuthVerdict> => {
            try {
              return verdictOf(request, await authenticate(request));
            } catch (err) {
              log.error({ err, clientId: request.clientId }, "authenticate hook failed: client refused (0x87)");
              return { ok: false, reasonCode: ReasonCode.NotAuthorized, reason: "authenticate hook failed" };
            }
          },
        }),
    canPublish: (client, topic) => base.canPublish(client, topic) && (authorizePublish?.(client, topic) ?? true),
    canSubscribe: (client, filter) => base.canSubscribe(client, filter) && (authorizeSubscribe?.(client, filter) ?? true),
  };
}
