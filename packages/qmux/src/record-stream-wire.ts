import { ByteReader } from "./byte-reader.js";
import { FramingError, TransportError } from "./errors.js";
import type { QmuxVersion } from "./events.js";
import type { Frame } from "./frame.js";
import { HeldChunks } from "./held-chunks.js";
import { decodeQmuxFrame, encodeQmuxFrame } from "./qmux-codec.js";
import { peekVarint, varintLength, varintSize, writeVarint, VARINT_SHORT } from "./varint.js";
import type { Wire } from "./wire.js";

/**
 * qmux-01/02 over a byte stream (TCP, TLS): records back to back, each a Size varint then whole
 * frames (the record layer the WebSocket carrier replaces with message boundaries). We send one
 * frame per record. A record larger than `maxRecordSize` (ours, as advertised) is refused, so at
 * most one partial record is ever held; once its Size is known, chunks are only collected until it
 * is complete, so a peer trickling bytes costs no re-parsing.
 */
export function qmuxRecordStreamWire(version: Exclude<QmuxVersion, "qmux-00">, maxRecordSize: number): Wire {
  const held = new HeldChunks();
  return {
    flowControl: true,
    version,
    // Each record carries its own Size: merging would mean rewriting it.
    recordBytes: 0,
    encode(frame) {
      const body = encodeQmuxFrame(frame);
      const out = new Uint8Array(varintSize(body.length) + body.length);
      out.set(body, writeVarint(out, 0, body.length));
      return out;
    },
    push(chunk) {
      const bytes = held.take(chunk);
      if (bytes === undefined) return { frames: [], error: undefined };
      const frames: Frame[] = [];
      let pos = 0;
      while (pos < bytes.length) {
        const size = peekVarint(bytes, pos, bytes.length);
        if (size !== VARINT_SHORT && (size < 0 || size > maxRecordSize)) {
          return { frames, error: new FramingError(TransportError.FRAME_ENCODING_ERROR, `record larger than ${String(maxRecordSize)} bytes`) };
        }
        const start = size === VARINT_SHORT ? pos : pos + varintLength(bytes[pos] ?? 0);
        if (size === VARINT_SHORT || bytes.length - start < size) {
          held.hold(bytes, pos, size === VARINT_SHORT ? 0 : start - pos + size);
          return { frames, error: undefined };
        }
        const reader = new ByteReader(bytes, start, start + size);
        while (reader.remaining > 0) {
          const result = decodeQmuxFrame(reader, true);
          if (result === "short") return { frames, error: new FramingError(TransportError.FRAME_ENCODING_ERROR, "truncated frame in record") };
          if (result instanceof FramingError) return { frames, error: result };
          frames.push(result);
        }
        pos = start + size;
      }
      return { frames, error: undefined };
    },
  };
}
