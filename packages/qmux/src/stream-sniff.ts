import { MIN_RECORD_SIZE } from "./transport-params.js";
import { varintLength } from "./varint.js";

/**
 * QX_TRANSPORT_PARAMETERS' frame type as it appears on the wire (0x3f5153300d0a0d0a, an 8-byte
 * varint), every qmux version's first frame: the draft's magic for telling qmux apart on a
 * carrier without ALPN.
 */
const MAGIC = [0xff, 0x51, 0x53, 0x30, 0x0d, 0x0a, 0x0d, 0x0a] as const;

/** The most leading bytes {@link sniffStreamQmux} reads: an 8-byte record Size, then the magic. */
export const STREAM_SNIFF_BYTES = 16;

/** What the first bytes of a qmux byte stream (plain TCP, no ALPN) say about its version. */
export type StreamSniff =
  /** Not enough bytes yet to tell. */
  | { readonly kind: "short" }
  /** Bare frames: qmux-00. */
  | { readonly kind: "qmux-00" }
  /** Size-prefixed records: qmux-01 or -02 (the same wire; the transport parameters tell which). */
  | { readonly kind: "records" }
  /** Not qmux at all (the bytes seen, in hex, are in `reason`). */
  | { readonly kind: "not-qmux"; readonly reason: string };

/**
 * Tells a byte stream's qmux version from its first bytes, as the peer sends them before
 * reading anything: qmux-00 starts with QX_TRANSPORT_PARAMETERS' 8-byte type (first byte 0xff),
 * qmux-01/02 with a record Size (never 0xff: that would exceed any max_record_size) followed by
 * the same type. Anything else is refused as soon as one byte disagrees, so garbage costs no
 * wait; at most {@link STREAM_SNIFF_BYTES} bytes are read. A record Size below a whole
 * QX_TRANSPORT_PARAMETERS header, or above our `maxRecordSize`, is refused too.
 */
export function sniffStreamQmux(bytes: Uint8Array, maxRecordSize: number = MIN_RECORD_SIZE): StreamSniff {
  const first = bytes[0];
  if (first === undefined) return { kind: "short" };
  if (first === MAGIC[0]) return matchMagic(bytes, 0) ?? { kind: "qmux-00" };
  const sizeLength = varintLength(first);
  if (bytes.length < sizeLength) return { kind: "short" };
  let size = first & 0x3f;
  for (let i = 1; i < sizeLength; i++) size = size * 256 + (bytes[i] ?? 0);
  // The record holds at least the type and a Length.
  if (size < MAGIC.length + 1 || size > maxRecordSize) return notQmux(bytes, `a first record of ${String(size)} bytes`);
  return matchMagic(bytes, sizeLength) ?? { kind: "records" };
}

/** Undefined when the bytes from `at` agree with the magic so far (and there are 8 of them). */
function matchMagic(bytes: Uint8Array, at: number): StreamSniff | undefined {
  for (let i = 0; i < MAGIC.length; i++) {
    const b = bytes[at + i];
    if (b === undefined) return { kind: "short" };
    if (b !== MAGIC[i]) return notQmux(bytes, "no QX_TRANSPORT_PARAMETERS first");
  }
  return undefined;
}

function notQmux(bytes: Uint8Array, why: string): StreamSniff {
  const hex = [...bytes.subarray(0, STREAM_SNIFF_BYTES)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
  return { kind: "not-qmux", reason: `not qmux (${why}): first bytes ${hex}` };
}
