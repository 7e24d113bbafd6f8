/**
 * The broker's access decisions, as the connection handler needs them. The auth module provides
 * the real one (password file, ACLs); `allowAll` is the anonymous quick-start default.
 * @module
 */

/** Who a connection is, once authenticated. */
export interface ClientIdentity {
  readonly clientId: string;
  readonly username?: string;
}

/**
 * The verdict on a CONNECT's credentials: the verified identity, or an MQTT 5 CONNACK reason code
 * (the protocol layer maps it to a 3.1.1 return code) and a reason for the log only.
 */
export type AuthVerdict =
  | { readonly ok: true; readonly identity: ClientIdentity }
  | { readonly ok: false; readonly reasonCode: number; readonly reason: string };

/** Authentication and authorisation hooks. */
export interface AccessControl {
  authenticate(request: { readonly clientId: string; readonly username?: string; readonly password?: Uint8Array }): Promise<AuthVerdict> | AuthVerdict;
  canPublish(client: ClientIdentity, topic: string): boolean;
  canSubscribe(client: ClientIdentity, filter: string): boolean;
}

/** Everyone may connect, publish and subscribe. */
export const allowAll: AccessControl = {
  authenticate: ({ clientId, username }) => ({ ok: true, identity: { clientId, ...(username === undefined ? {} : { username }) } }),
  canPublish: () => true,
  canSubscribe: () => true,
};

/** The subset of the auth module's `Authenticator` this adapter needs. */
export interface AuthenticatorLike {
  authenticate(credentials: { clientId: string; username?: string; password?: Uint8Array }): Promise<
    | { readonly ok: true; readonly subject: { readonly clientId: string; readonly username: string | undefined } }
    | { readonly ok: "enhanced" }
    | { readonly ok: false; readonly reasonCode: number; readonly detail: string }
  >;
  canPublish(subject: { readonly clientId: string; readonly username: string | undefined }, topic: string): boolean;
  canSubscribe(subject: { readonly clientId: string; readonly username: string | undefined }, filter: string): boolean;
}

// Enhanced authentication runs through AUTH packets, which the connection handler does not drive
// yet: a CONNECT naming a method is refused with 0x8C (Bad authentication method).
const BAD_AUTHENTICATION_METHOD = 0x8c;

/** Adapts the auth module (password file, ACLs) to the handler's hooks. */
export function accessFrom(auth: AuthenticatorLike): AccessControl {
  const subject = (id: ClientIdentity) => ({ clientId: id.clientId, username: id.username });
  return {
    authenticate: async (request) => {
      const result = await auth.authenticate(request);
      if (result.ok === true) {
        const { clientId, username } = result.subject;
        return { ok: true, identity: { clientId, ...(username === undefined ? {} : { username }) } };
      }
      if (result.ok === "enhanced") return { ok: false, reasonCode: BAD_AUTHENTICATION_METHOD, reason: "enhanced authentication is not enabled" };
      return { ok: false, reasonCode: result.reasonCode, reason: result.detail };
    },
    canPublish: (id, topic) => auth.canPublish(subject(id), topic),
    canSubscribe: (id, filter) => auth.canSubscribe(subject(id), filter),
  };
}
