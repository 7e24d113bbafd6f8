/**
 * The hook for MQTT 5 enhanced authentication (CONNECT / AUTH exchanges carrying an
 * Authentication Method such as SCRAM-SHA-256). No method ships yet; a method registered here is
 * offered to clients whose CONNECT names it, and an unknown method is refused with 0x8C.
 * @module
 */
import type { AclSubject } from "./acl.js";

/** One step of an enhanced authentication exchange, as the method decides it. */
export type EnhancedAuthStep =
  /** Send AUTH (reason 0x18 Continue authentication) with this data and wait for the client's reply. */
  | { readonly kind: "continue"; readonly data: Uint8Array }
  /** Accept; `data` goes into the CONNACK's Authentication Data. */
  | { readonly kind: "success"; readonly subject: AclSubject; readonly data?: Uint8Array }
  /** Refuse with this MQTT 5 reason code (typically 0x86 or 0x87). */
  | { readonly kind: "failure"; readonly reasonCode: number };

/** A conversation of one connection with one method; discarded when the connection ends. */
export interface EnhancedAuthExchange {
  /** Handles the next AUTH packet's Authentication Data from the client. */
  next(data: Uint8Array | undefined): Promise<EnhancedAuthStep>;
}

/** An enhanced authentication method. */
export interface EnhancedAuthMethod {
  /** The Authentication Method name clients send, e.g. `SCRAM-SHA-256`. */
  readonly name: string;
  /** Starts an exchange for a CONNECT from `clientId` carrying `data`; returns the exchange and its first step. */
  start(clientId: string, data: Uint8Array | undefined): Promise<{ readonly exchange: EnhancedAuthExchange; readonly step: EnhancedAuthStep }>;
}
