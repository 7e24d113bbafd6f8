/**
 * The broker's one vocabulary of access: who a client is, whether it may connect, publish,
 * subscribe and receive, and the MQTT 5 reason code when it may not. The `Authenticator`
 * (password file, ACL file) is an {@link AccessControl}; an embedding service's hooks are laid over
 * one (`embed-hooks.ts`); the connection handler asks one; {@link allowAll} is the anonymous
 * quick-start default.
 * @module
 */

/** Who a connection is, once authenticated. */
export interface ClientIdentity {
  /** The connection's client id. */
  readonly clientId: string;
  /** The authenticated user name; absent for an anonymous client. */
  readonly username?: string;
}

/** The credentials of a CONNECT. */
export interface AuthenticateRequest {
  /** The client id the CONNECT carries (or the one the broker assigned). */
  readonly clientId: string;
  /** The user name, if the client sent one. */
  readonly username?: string;
  /** The password bytes, if the client sent one. */
  readonly password?: Uint8Array;
}

/**
 * The verdict on a CONNECT's credentials: the verified identity, or an MQTT 5 CONNACK reason code
 * (the protocol layer maps it to a 3.1.1 return code) and a reason for the log only (it would help
 * a guesser).
 */
export type AuthVerdict =
  | { readonly ok: true; readonly identity: ClientIdentity }
  | { readonly ok: false; readonly reasonCode: number; readonly reason: string };

/** One step of an MQTT 5 enhanced authentication exchange (e.g. SCRAM-SHA-256), as the method decides it. */
export type EnhancedAuthStep =
  /** Send AUTH (reason 0x18 Continue authentication) with this data and wait for the client's reply. */
  | { readonly kind: "continue"; readonly data: Uint8Array }
  /** Accept `identity`; `data` goes into the CONNACK's Authentication Data. */
  | { readonly kind: "success"; readonly identity: ClientIdentity; readonly data?: Uint8Array }
  /** Refuse with this MQTT 5 reason code (typically 0x86 or 0x87). */
  | { readonly kind: "failure"; readonly reasonCode: number };

/** A conversation of one connection with one method; discarded when the connection ends. */
export interface EnhancedAuthExchange {
  /** Handles the next AUTH packet's Authentication Data from the client. */
  next(data: Uint8Array | undefined): Promise<EnhancedAuthStep>;
}

/** An exchange begun, and its first step. */
export interface EnhancedAuthStart {
  readonly exchange: EnhancedAuthExchange;
  readonly step: EnhancedAuthStep;
}

/** An enhanced authentication method. */
export interface EnhancedAuthMethod {
  /** The Authentication Method name clients send, e.g. `SCRAM-SHA-256`. */
  readonly name: string;
  /** Starts an exchange for a CONNECT from `clientId` carrying `data`. */
  start(clientId: string, data: Uint8Array | undefined): Promise<EnhancedAuthStart>;
}

/** Who may connect, publish, subscribe and receive. */
export interface AccessControl {
  /**
   * Starts enhanced authentication for a CONNECT naming `method`; undefined when the method is
   * not offered (CONNACK 0x8C). Absent: no method is offered.
   */
  startEnhanced?(clientId: string, method: string, data: Uint8Array | undefined): Promise<EnhancedAuthStart | undefined>;
  /** Decides a CONNECT without an Authentication Method. */
  authenticate(request: AuthenticateRequest): Promise<AuthVerdict> | AuthVerdict;
  /**
   * Whether `client` may publish to `topic` (and so set a will there); false: 0x87. At once, or a
   * promise (an embedding service's async hook).
   */
  canPublish(client: ClientIdentity, topic: string): boolean | Promise<boolean>;
  /**
   * Refuses a filter (SUBACK 0x87) only when nothing it can match is readable; the rest is
   * {@link canReceive}'s. At once, or a promise.
   */
  canSubscribe(client: ClientIdentity, filter: string): boolean | Promise<boolean>;
  /** Whether `client` may receive a message on `topic`, checked per message at delivery; absent: yes. */
  canReceive?(client: ClientIdentity, topic: string): boolean;
}

/** An identity with the user name only when there is one (the optional field stays absent otherwise). */
export function clientIdentity(clientId: string, username: string | undefined): ClientIdentity {
  return username === undefined ? { clientId } : { clientId, username };
}

/** Everyone may connect, publish and subscribe. */
export const allowAll: AccessControl = {
  authenticate: ({ clientId, username }) => ({ ok: true, identity: clientIdentity(clientId, username) }),
  canPublish: () => true,
  canSubscribe: () => true,
};
