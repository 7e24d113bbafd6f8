/**
 * The access hooks an embedding service supplies as functions, laid over the config's own
 * (password file, ACL): a service's `authenticate` replaces the password check; its
 * `authorizePublish` / `authorizeSubscribe` are asked after the ACL, and both must allow. The
 * hooks speak the broker's access vocabulary (`access.ts`) but for the `authenticate` hook's
 * shorter answer, {@link AuthenticateResult}; {@link withHooks} is the one place that translates.
 * @module
 */
import { ReasonCode } from "@handoff/mqtt-router";
import type { Logger } from "pino";
import { clientIdentity, type AccessControl, type AuthenticateRequest, type AuthVerdict, type ClientIdentity } from "./access.js";

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
  /**
   * Whether `client` may publish to `topic`, asked per PUBLISH and for the will (false: PUBACK or
   * PUBREC 0x87, a QoS 0 message is dropped; a will: CONNACK 0x87). Async allowed: while it is
   * pending, the client's later packets wait, its later PUBLISHes are asked about at once and are
   * still routed in the order they arrived; its messages are acknowledged only after the store's
   * commit; a connection taken over or closed meanwhile gets nothing routed. A hook that throws or
   * rejects refuses, and is logged. A plain boolean answer adds no wait.
   */
  readonly authorizePublish?: (client: ClientIdentity, topic: string) => boolean | Promise<boolean>;
  /** Whether `client` may subscribe to `filter` (false: that filter's SUBACK is 0x87). Async allowed, as for `authorizePublish`. */
  readonly authorizeSubscribe?: (client: ClientIdentity, filter: string) => boolean | Promise<boolean>;
}

function verdictOf(request: AuthenticateRequest, result: AuthenticateResult): AuthVerdict {
  if (result === true) return { ok: true, identity: clientIdentity(request.clientId, request.username) };
  if (result === false) return { ok: false, reasonCode: ReasonCode.BadUserNameOrPassword, reason: "refused by the authenticate hook" };
  if (result.ok) return { ok: true, identity: clientIdentity(request.clientId, result.username ?? request.username) };
  return { ok: false, reasonCode: result.reasonCode ?? ReasonCode.NotAuthorized, reason: result.reason ?? "refused by the authenticate hook" };
}

type Authorize = (client: ClientIdentity, name: string) => boolean | Promise<boolean>;

// The config's decision first (file ACL, synchronous), then the service's hook: both must allow.
// A hook that throws or rejects refuses (0x87) and is logged; it never reaches the session.
function both(base: Authorize, hook: Authorize | undefined, what: "publish" | "subscribe", log: Logger): Authorize {
  if (hook === undefined) return base;
  const failed = (err: unknown, client: ClientIdentity, name: string): false => {
    log.error({ err, clientId: client.clientId, ...(what === "publish" ? { topic: name } : { filter: name }) }, `authorize ${what} hook failed: refused (0x87)`);
    return false;
  };
  const ask: Authorize = (client, name) => {
    try {
      const decision = hook(client, name);
      if (typeof decision === "boolean") return decision;
      return decision.then(
        (ok) => ok,
        (err: unknown) => failed(err, client, name),
      );
    } catch (err) {
      return failed(err, client, name);
    }
  };
  return (client, name) => {
    const allowed = base(client, name);
    if (typeof allowed === "boolean") return allowed && ask(client, name);
    return allowed.then((ok) => ok && ask(client, name));
  };
}

/**
 * `base` with the service's hooks laid over it. Enhanced authentication and the per-delivery read
 * check stay `base`'s. (Built member by member: `base` may be a class, whose methods a spread
 * would not copy.)
 */
export function withHooks(base: AccessControl, hooks: BrokerHooks, log: Logger): AccessControl {
  const { authenticate, authorizePublish, authorizeSubscribe } = hooks;
  const startEnhanced = base.startEnhanced?.bind(base);
  const canReceive = base.canReceive?.bind(base);
  return {
    authenticate:
      authenticate === undefined
        ? (request) => base.authenticate(request)
        : async (request): Promise<AuthVerdict> => {
            try {
              return verdictOf(request, await authenticate(request));
            } catch (err) {
              log.error({ err, clientId: request.clientId }, "authenticate hook failed: client refused (0x87)");
              return { ok: false, reasonCode: ReasonCode.NotAuthorized, reason: "authenticate hook failed" };
            }
          },
    ...(startEnhanced === undefined ? {} : { startEnhanced }),
    canPublish: both((client, topic) => base.canPublish(client, topic), authorizePublish, "publish", log),
    canSubscribe: both((client, filter) => base.canSubscribe(client, filter), authorizeSubscribe, "subscribe", log),
    ...(canReceive === undefined ? {} : { canReceive }),
  };
}
