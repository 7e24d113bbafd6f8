/**
 * The broker's access decisions, as the connection handler needs them. The auth module provides
 * the real one (password file, ACLs); `allowAll` is the anonymous quick-start default.
 * @module
 */
import { ReasonCode } from "@handoff/mqtt-router";

/** Who a connection is, once authenticated. */
export interface ClientIdentity {
  /** The connection's client id. */
  readonly clientId: string;
  /** The authenticated user name; absent for an anonymous client. */
  readonly username?: string;
}

/**
 * The verdict on a CONNECT's credentials: the verified identity, or an MQTT 5 CONNACK reason code
 * (the protocol layer maps it to a 3.1.1 return code) and a reason for the log only.
 */
export type AuthVerdict =
  | { readonly ok: true; readonly identity: ClientIdentity }
  | { readonly ok: false; readonly reasonCode: number; readonly reason: string };

/** One step of an MQTT 5 enhanced authentication exchange (e.g. SCRAM-SHA-256). */
export type EnhancedStep =
  | { readonly kind: "continue"; readonly data: Uint8Array }
  | { readonly kind: "success"; readonly identity: ClientIdentity; readonly data?: Uint8Array }
  | { readonly kind: "failure"; readonly reasonCode: number };

/** The rest of an exchange: each AUTH packet's data from the client gives the next step. */
export interface EnhancedExchange {
  next(data: Uint8Array | undefined): Promise<EnhancedStep>;
}

/** Authentication and authorisation hooks. */
export interface AccessControl {
  /**
   * Starts enhanced authentication for a CONNECT naming `method`; undefined when the method is
   * not offered (CONNACK 0x8C).
   */
  startEnhanced?(clientId: string, method: string, data: Uint8Array | undefined): Promise<{ readonly exchange: EnhancedExchange; readonly step: EnhancedStep } | undefined>;
  authenticate(request: { readonly clientId: string; readonly username?: string; readonly password?: Uint8Array }): Promise<AuthVerdict> | AuthVerdict;
  /** Whether `client` may publish to `topic`: at once, or a promise (an embedding service's async hook). */
  canPublish(client: ClientIdentity, topic: string): boolean | Promise<boolean>;
  /**
   * Refuses a filter only when nothing it can match is readable; the rest is {@link canReceive}'s.
   * At once, or a promise.
   */
  canSubscribe(client: ClientIdentity, filter: string): boolean | Promise<boolean>;
  /** Whether `client` may receive a message on `topic`, checked per message at delivery; absent: yes. */
  canReceive?(client: ClientIdentity, topic: string): boolean;
}

/** Everyone may connect, publish and subscribe. */
export const allowAll: AccessControl = {
  authenticate: ({ clientId, username }) => ({ ok: true, identity: { clientId, ...(username === undefined ? {} : { username }) } }),
  canPublish: () => true,
  canSubscribe: () => true,
};

interface Subject {
  readonly clientId: string;
  readonly username: string | undefined;
}

type MethodStep =
  | { readonly kind: "continue"; readonly data: Uint8Array }
  | { readonly kind: "success"; readonly subject: Subject; readonly data?: Uint8Array }
  | { readonly kind: "failure"; readonly reasonCode: number };

/** An enhanced authentication method as the auth module provides it. */
interface MethodLike {
  start(clientId: string, data: Uint8Array | undefined): Promise<{ readonly exchange: { next(data: Uint8Array | undefined): Promise<MethodStep> }; readonly step: MethodStep }>;
}

/** The subset of the auth module's `Authenticator` this adapter needs. */
export interface AuthenticatorLike {
  authenticate(credentials: { clientId: string; username?: string; password?: Uint8Array; authenticationMethod?: string }): Promise<
    | { readonly ok: true; readonly subject: Subject }
    | { readonly ok: "enhanced"; readonly method: MethodLike }
    | { readonly ok: false; readonly reasonCode: number; readonly detail: string }
  >;
  canPublish(subject: { readonly clientId: string; readonly username: string | undefined }, topic: string): boolean;
  canSubscribe(subject: { readonly clientId: string; readonly username: string | undefined }, filter: string): boolean;
  canReceive(subject: { readonly clientId: string; readonly username: string | undefined }, topic: string): boolean;
}

// A password CONNECT that the authenticator answers with a method (it should not) is refused
// with 0x8C (Bad authentication method).

function identityOf(subject: Subject): ClientIdentity {
  return { clientId: subject.clientId, ...(subject.username === undefined ? {} : { username: subject.username }) };
}

function stepOf(step: MethodStep): EnhancedStep {
  return step.kind === "success"
    ? { kind: "success", identity: identityOf(step.subject), ...(step.data === undefined ? {} : { data: step.data }) }
    : step;
}

/** Adapts the auth module (password file, ACLs) to the handler's hooks. */
export function accessFrom(auth: AuthenticatorLike): AccessControl {
  const subject = (id: ClientIdentity) => ({ clientId: id.clientId, username: id.username });
  return {
    authenticate: async (request) => {
      const result = await auth.authenticate(request);
      if (result.ok === true) return { ok: true, identity: identityOf(result.subject) };
      if (result.ok === "enhanced") return { ok: false, reasonCode: ReasonCode.BadAuthenticationMethod, reason: "CONNECT without a method answered with one" };
      return { ok: false, reasonCode: result.reasonCode, reason: result.detail };
    },
    startEnhanced: async (clientId, method, data) => {
      const result = await auth.authenticate({ clientId, authenticationMethod: method });
      if (result.ok !== "enhanced") return undefined;
      const started = await result.method.start(clientId, data);
      return {
        exchange: { next: async (next) => stepOf(await started.exchange.next(next)) },
        step: stepOf(started.step),
      };
    },
    canPublish: (id, topic) => auth.canPublish(subject(id), topic),
    canSubscribe: (id, filter) => auth.canSubscribe(subject(id), filter),
    canReceive: (id, topic) => auth.canReceive(subject(id), topic),
  };
}
