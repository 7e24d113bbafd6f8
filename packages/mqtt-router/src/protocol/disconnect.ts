import type { DisconnectPacket } from "../codec/packet.js";
import { ReasonCode } from "../codec/reason-codes.js";
import { violation, type Violation } from "./violation.js";

/** What a client DISCONNECT means for the session. */
export interface ClientDisconnect {
  readonly reasonCode: number;
  /** False only for a normal disconnection (0x00), which deletes the Will [MQTT-3.1.2-10], [MQTT-3.14.4-3]. */
  readonly publishWill: boolean;
  /** The Session Expiry Interval from now on. */
  readonly sessionExpiryInterval: number;
  readonly reasonString?: string;
}

/**
 * Interprets a client DISCONNECT. Raising the Session Expiry Interval from a CONNECT value of 0
 * is a Protocol Error (spec §3.14.2.2.2); any other value replaces the current one (capped by
 * the server's maximum).
 */
export function clientDisconnect(
  packet: DisconnectPacket,
  connectExpiry: number,
  currentExpiry: number,
  maximumExpiry: number,
): ClientDisconnect | Violation {
  const requested = packet.properties.sessionExpiryInterval;
  if (requested !== undefined && requested !== 0 && connectExpiry === 0) {
    return violation(ReasonCode.ProtocolError, "DISCONNECT sets a Session Expiry Interval after CONNECT set 0");
  }
  const reasonString = packet.properties.reasonString;
  return {
    reasonCode: packet.reasonCode,
    publishWill: packet.reasonCode !== ReasonCode.NormalDisconnection,
    sessionExpiryInterval: requested === undefined ? currentExpiry : Math.min(requested, maximumExpiry),
    ...(reasonString === undefined ? {} : { reasonString }),
  };
}

/** Tells a {@link ClientDisconnect} from a {@link Violation}. */
export function isViolation(x: ClientDisconnect | Violation): x is Violation {
  return !("publishWill" in x);
}

/** The DISCONNECT a server sends (MQTT 5 only) [MQTT-3.14.0-1]. */
export function serverDisconnect(reasonCode: number, reasonString: string | undefined): DisconnectPacket {
  return { type: "disconnect", reasonCode, properties: reasonString === undefined ? {} : { reasonString } };
}
