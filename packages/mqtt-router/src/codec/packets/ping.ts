import { finishPacket, startPacket } from "../frame.js";
import type { PingreqPacket, PingrespPacket } from "../packet.js";

/** The decoded PINGREQ (it has no fields, so one frozen instance serves all). */
export const PINGREQ: PingreqPacket = Object.freeze({ type: "pingreq" });
/** The decoded PINGRESP. */
export const PINGRESP: PingrespPacket = Object.freeze({ type: "pingresp" });

/** Encodes PINGREQ (0xC0 0x00) or PINGRESP (0xD0 0x00). */
export function encodePing(p: PingreqPacket | PingrespPacket, maxPacketSize: number): Uint8Array {
  return finishPacket(startPacket(p.type === "pingreq" ? 0xc0 : 0xd0, 0, maxPacketSize));
}
