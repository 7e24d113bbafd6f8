import { MqttEncodeError } from "./errors.js";
import { MAX_PACKET_SIZE } from "./frame.js";
import type { Packet, ProtocolVersion } from "./packet.js";
import { encodeAuth } from "./packets/auth.js";
import { encodeConnack } from "./packets/connack.js";
import { encodeConnect } from "./packets/connect.js";
import { encodeDisconnect } from "./packets/disconnect.js";
import { encodePing } from "./packets/ping.js";
import { encodePubAck } from "./packets/pub-acks.js";
import { encodePublish } from "./packets/publish.js";
import { encodeSuback } from "./packets/suback.js";
import { encodeSubscribe } from "./packets/subscribe.js";
import { encodeUnsuback } from "./packets/unsuback.js";
import { encodeUnsubscribe } from "./packets/unsubscribe.js";

/** Outcome of encoding: the packet's bytes, or why it cannot be written (never thrown). */
export type EncodeResult = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly error: MqttEncodeError };

/** Options of {@link encodePacket}. */
export interface EncodeOptions {
  /**
   * Protocol version of the connection (ignored for CONNECT, which carries its own). On 3.1.1,
   * MQTT 5-only fields (properties, reason codes of acknowledgements, subscription options other
   * than QoS) are not written.
   */
  readonly protocolVersion: ProtocolVersion;
  /** Largest whole packet allowed (e.g. the peer's Maximum Packet Size); default the spec maximum. */
  readonly maxPacketSize?: number;
}

/**
 * Encodes a packet into one exactly sized Uint8Array after validating it (packet ids, QoS, string
 * lengths and contents, topic syntax, properties allowed for the packet, reason codes, size).
 */
export function encodePacket(packet: Packet, options: EncodeOptions): EncodeResult {
  try {
    return { ok: true, bytes: encodeOrThrow(packet, options.protocolVersion, options.maxPacketSize ?? MAX_PACKET_SIZE) };
  } catch (e) {
    return { ok: false, error: asEncodeError(e) };
  }
}

/** Wraps anything thrown while encoding as a MqttEncodeError (non-codec errors mean bad input types). */
export function asEncodeError(e: unknown): MqttEncodeError {
  if (e instanceof MqttEncodeError) return e;
  return new MqttEncodeError(0x81, `cannot encode: ${String(e)}`);
}

function encodeOrThrow(p: Packet, version: ProtocolVersion, max: number): Uint8Array {
  switch (p.type) {
    case "connect":
      return encodeConnect(p, max);
    case "connack":
      return encodeConnack(p, version, max);
    case "publish":
      return encodePublish(p, version, max);
    case "puback":
    case "pubrec":
    case "pubrel":
    case "pubcomp":
      return encodePubAck(p, version, max);
    case "subscribe":
      return encodeSubscribe(p, version, max);
    case "suback":
      return encodeSuback(p, version, max);
    case "unsubscribe":
      return encodeUnsubscribe(p, version, max);
    case "unsuback":
      return encodeUnsuback(p, version, max);
    case "pingreq":
    case "pingresp":
      return encodePing(p, max);
    case "disconnect":
      return encodeDisconnect(p, version, max);
    case "auth":
      return encodeAuth(p, version, max);
    default: {
      const unreachable: never = p;
      throw new MqttEncodeError(0x81, `unknown packet type ${String((unreachable as { type: unknown }).type)}`);
    }
  }
}
