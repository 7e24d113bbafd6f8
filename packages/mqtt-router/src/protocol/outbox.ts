import { encodePacket, type EncodeResult } from "../codec/encode.js";
import { MAX_PACKET_SIZE } from "../codec/frame.js";
import type { Packet, ProtocolVersion } from "../codec/packet.js";
import type { AckProperties } from "../codec/property-types.js";
import type { Action, Effect } from "./effects.js";

/** How packets are written for this peer; set when CONNECT is seen. */
export interface PeerFormat {
  /** Wire format of the connection. */
  version: ProtocolVersion;
  /** The client's Maximum Packet Size: nothing larger is ever sent [MQTT-3.1.2-24]. */
  maximumPacketSize: number;
  /** The client's Request Problem Information (false: no reason strings outside CONNACK/DISCONNECT/PUBLISH). */
  problemInformation: boolean;
}

/**
 * The ordered list of actions a connection produces, drained by the app. Once a `close` is
 * queued nothing else is accepted, so nothing can follow a close.
 */
export class Outbox {
  #actions: Action[] = [];
  #closed = false;
  /** The peer's format; the connection updates it when CONNECT arrives. */
  readonly peer: PeerFormat = { version: 4, maximumPacketSize: MAX_PACKET_SIZE, problemInformation: true };

  readonly #reasonStrings: boolean;

  /** @param reasonStrings whether Reason Strings may be sent at all */
  constructor(reasonStrings: boolean) {
    this.#reasonStrings = reasonStrings;
  }

  /** True once `close` was queued. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Queues an effect for the app. */
  effect(effect: Effect): void {
    if (!this.#closed) this.#actions.push({ kind: "effect", effect });
  }

  /**
   * Encodes and queues `packet`. A packet the peer would find too large loses its Reason String
   * and User Properties first (spec §3.1.2.11.4 allows dropping them); if it is still too large,
   * or cannot be encoded, it is not sent and the failed result is returned.
   */
  send(packet: Packet): EncodeResult {
    // After close nothing is written; callers need no special case for that.
    if (this.#closed) return { ok: true, bytes: new Uint8Array(0) };
    let p = this.#filterProblemInfo(packet);
    let result = this.#encode(p);
    if (!result.ok && result.error.reasonCode === 0x95 && p.type !== "publish") {
      p = stripProblemInfo(p);
      result = this.#encode(p);
    }
    if (result.ok) this.#actions.push({ kind: "send", packet: p, bytes: result.bytes });
    return result;
  }

  /** Queues already encoded bytes of `packet` (used when the caller encoded it to size it first). */
  sendEncoded(packet: Packet, bytes: Uint8Array): void {
    if (!this.#closed) this.#actions.push({ kind: "send", packet, bytes });
  }

  /** Encodes `packet` in the peer's format and size limit, without queueing it. */
  encode(packet: Packet): EncodeResult {
    return this.#encode(packet);
  }

  /** Queues the close; everything queued later is dropped. */
  close(reasonCode: number): void {
    if (this.#closed) return;
    this.#actions.push({ kind: "close", reasonCode });
    this.#closed = true;
  }

  /** Hands over the queued actions, oldest first, and empties the queue. */
  drain(): Action[] {
    const out = this.#actions;
    this.#actions = [];
    return out;
  }

  #encode(packet: Packet): EncodeResult {
    return encodePacket(packet, { protocolVersion: this.peer.version, maxPacketSize: this.peer.maximumPacketSize });
  }

  #filterProblemInfo(packet: Packet): Packet {
    const keepsProblemInfo = packet.type === "connack" || packet.type === "disconnect" || packet.type === "publish";
    if (!keepsProblemInfo && !this.peer.problemInformation) return stripProblemInfo(packet); // [MQTT-3.1.2-29]
    if (!this.#reasonStrings) return stripProblemInfo(packet, true);
    return packet;
  }
}

/** Removes Reason String and, unless `keepUserProperties`, User Properties from a non-PUBLISH packet. */
function stripProblemInfo(packet: Packet, keepUserProperties = false): Packet {
  switch (packet.type) {
    case "connack":
      return { ...packet, properties: strip(packet.properties, keepUserProperties) };
    case "puback":
    case "pubrec":
    case "pubrel":
    case "pubcomp":
    case "suback":
    case "unsuback":
      return { ...packet, properties: strip(packet.properties, keepUserProperties) };
    case "disconnect":
      return { ...packet, properties: strip(packet.properties, keepUserProperties) };
    case "auth":
      return { ...packet, properties: strip(packet.properties, keepUserProperties) };
    case "connect":
    case "publish":
    case "subscribe":
    case "unsubscribe":
    case "pingreq":
    case "pingresp":
      return packet;
    default: {
      const unreachable: never = packet;
      return unreachable;
    }
  }
}

function strip<T extends AckProperties>(props: T, keepUserProperties: boolean): T {
  if (props.reasonString === undefined && (keepUserProperties || props.userProperties === undefined)) return props;
  const { reasonString: _reason, userProperties, ...rest } = props;
  // Omit<T, ...> plus an optional userProperties is still a T: both keys are optional in T.
  return (keepUserProperties && userProperties !== undefined ? { ...rest, userProperties } : rest) as T;
}
