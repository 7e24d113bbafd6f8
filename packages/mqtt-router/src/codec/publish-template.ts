import { asEncodeError } from "./encode.js";
import { checkInt } from "./byte-writer.js";
import { MqttEncodeError } from "./errors.js";
import { MAX_PACKET_SIZE } from "./frame.js";
import { allocPacket } from "./packet-slab.js";
import type { ProtocolVersion, PublishPacket } from "./packet.js";
import { DUP_FLAG, encodePublish, publishPacketIdOffset } from "./packets/publish.js";

/**
 * A PUBLISH encoded once, to be sent to many subscribers. QoS 0 templates are sent as they are
 * (`bytes`); for QoS 1/2 each subscriber needs its own packet id (and DUP on a resend), which
 * {@link PublishTemplate.withPacketId} patches into a copy: one memcpy, no re-encoding.
 * Per-subscriber properties (Subscription Identifiers, Topic Alias) make a different variant:
 * cache one template per (version, QoS, retain, properties) combination actually used.
 */
export class PublishTemplate {
  /** The encoded packet (for QoS > 0 it carries the packet id it was built with). */
  readonly bytes: Uint8Array;
  /** QoS the template was encoded with. */
  readonly qos: 0 | 1 | 2;
  readonly #packetIdOffset: number;

  /** @internal use {@link preparePublish} */
  constructor(bytes: Uint8Array, qos: 0 | 1 | 2, packetIdOffset: number) {
    this.bytes = bytes;
    this.qos = qos;
    this.#packetIdOffset = packetIdOffset;
  }

  /**
   * A copy of the packet with `packetId` (1..65535) and the DUP flag set as given. Throws
   * MqttEncodeError on a QoS 0 template or an id out of range: those are programming errors of
   * the caller (the packet id allocator), not peer input, so they are not returned as values.
   */
  withPacketId(packetId: number, dup = false): Uint8Array {
    if (this.qos === 0) throw new MqttEncodeError(0x82, "a QoS 0 PUBLISH has no packet id");
    checkInt(packetId, 1, 0xffff, "packetId");
    const out = allocPacket(this.bytes.length);
    out.set(this.bytes);
    out[0] = dup ? (out[0] ?? 0) | DUP_FLAG : (out[0] ?? 0) & ~DUP_FLAG;
    out[this.#packetIdOffset] = packetId >>> 8;
    out[this.#packetIdOffset + 1] = packetId & 0xff;
    return out;
  }
}

/** Result of {@link preparePublish}. */
export type PrepareResult =
  | { readonly ok: true; readonly template: PublishTemplate }
  | { readonly ok: false; readonly error: MqttEncodeError };

/**
 * Encodes `packet` once as a reusable template (validated like {@link encodePacket}). For QoS > 0
 * the packet's own `packetId` is a placeholder that `withPacketId` replaces.
 */
export function preparePublish(
  packet: PublishPacket,
  protocolVersion: ProtocolVersion,
  maxPacketSize: number = MAX_PACKET_SIZE,
): PrepareResult {
  try {
    const bytes = encodePublish(packet, protocolVersion, maxPacketSize);
    const offset = packet.qos === 0 ? 0 : publishPacketIdOffset(bytes);
    return { ok: true, template: new PublishTemplate(bytes, packet.qos, offset) };
  } catch (e) {
    return { ok: false, error: asEncodeError(e) };
  }
}
