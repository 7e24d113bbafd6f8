import { ByteWriter } from "./byte-writer.js";
import { MqttEncodeError } from "./errors.js";
import { allocPacket } from "./packet-slab.js";
import { MAX_VARINT, varintLength, writeVarint } from "./varint.js";

/** The spec's largest possible packet: a five-byte fixed header plus 268,435,455 bytes. */
export const MAX_PACKET_SIZE = 1 + 4 + MAX_VARINT;

/**
 * Allocates a packet of exactly the right size, writes its fixed header and returns a writer
 * positioned at the variable header. Refuses (Packet Too Large) a body the Remaining Length
 * cannot express or a packet over `maxPacketSize`, before allocating.
 */
export function startPacket(firstByte: number, remainingLength: number, maxPacketSize: number): ByteWriter {
  if (remainingLength > MAX_VARINT) {
    throw new MqttEncodeError(0x95, "packet body exceeds the largest Remaining Length");
  }
  const total = 1 + varintLength(remainingLength) + remainingLength;
  if (total > maxPacketSize) {
    throw new MqttEncodeError(0x95, `packet of ${total} bytes exceeds the maximum of ${maxPacketSize}`);
  }
  // Bytes no other packet shares (a small one is carved from a slab); every byte is written
  // (finishPacket checks it).
  const buf = allocPacket(total);
  buf[0] = firstByte;
  const w = new ByteWriter(buf);
  w.pos = writeVarint(buf, 1, remainingLength);
  return w;
}

/**
 * Returns the written packet after checking the writer filled it exactly: a measuring bug must
 * surface as an error, never as a packet with unwritten (possibly stale) bytes.
 */
export function finishPacket(w: ByteWriter): Uint8Array {
  if (w.pos !== w.buf.length) {
    throw new MqttEncodeError(0x81, `internal size mismatch: wrote ${w.pos} of ${w.buf.length} bytes`);
  }
  return w.buf;
}
