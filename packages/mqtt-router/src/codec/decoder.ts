import { type DecodeResult, asDecodeError, decodeBody } from "./decode.js";
import { MqttDecodeError, malformed } from "./errors.js";
import { MAX_PACKET_SIZE } from "./frame.js";
import type { ProtocolVersion } from "./packet.js";
import { VARINT_INCOMPLETE, VARINT_MALFORMED, readVarint, varintLength } from "./varint.js";

/** Options of {@link PacketDecoder}. */
export interface PacketDecoderOptions {
  /**
   * Version of the connection, if known (a client knows it; a server learns it from CONNECT).
   * While undefined, only CONNECT decodes; the first CONNECT sets it (level 3 decodes as 4).
   */
  readonly protocolVersion?: ProtocolVersion;
  /**
   * Largest whole packet accepted, in bytes. Checked as soon as the fixed header is read, before
   * any of the body is buffered. Default: the spec maximum (268,435,460): a server facing the
   * Internet should set its own (and announce it as Maximum Packet Size in CONNACK).
   */
  readonly maxPacketSize?: number;
}

const FIXED_HEADER_MAX = 5;
const INITIAL_RESERVE = 64 * 1024;

/**
 * Streaming decoder for one connection's inbound byte stream. `push` bytes as they arrive, in any
 * chunking; `next` pulls decoded packets and errors in order.
 *
 * - A packet lying wholly inside one pushed chunk is decoded in place: its payload and binary
 *   fields are views into that chunk (so do not reuse a pushed buffer). A packet split over
 *   chunks is assembled in a buffer that grows with the bytes received (64 KiB first, then
 *   doubling up to the announced length), so announcing a large packet costs no more memory
 *   than sending it.
 * - The maximum packet size is enforced from the fixed header alone: an announced 256 MiB body is
 *   refused with 0x95 without allocating. So at most `maxPacketSize` bytes are ever buffered
 *   (a fixed header is at most 5 bytes and counts in the packet size).
 * - Errors are fatal: after the first one the decoder ignores further input and `next` keeps
 *   returning that same error. It never tries to resynchronise (MQTT has no frame markers).
 * - Decoded packets wait in a queue until pulled; pull after each push (as a socket handler
 *   does) so the queue never holds more than one chunk's worth.
 */
export class PacketDecoder {
  #version: ProtocolVersion | undefined;
  readonly #max: number;
  #queue: DecodeResult[] = [];
  /** The size of each queued packet, in bytes (0 for an error). */
  #sizes: number[] = [];
  #head = 0;
  #lastSize = 0;
  #failure: { readonly ok: false; readonly error: MqttDecodeError } | undefined;
  /** A fixed header split across chunks; made the first time one is (memory per idle connection). */
  #header: Uint8Array | undefined;
  #headerLength = 0;
  // A split packet being assembled: `#pending` grows (doubling, capped at `#pendingTotal`) as
  // bytes arrive, so a peer announcing a large packet and sending little costs little memory.
  #pending: Uint8Array | undefined;
  #pendingTotal = 0;
  #pendingFilled = 0;
  #pendingBodyStart = 0;

  /** @param options version and size limit; see {@link PacketDecoderOptions} */
  constructor(options: PacketDecoderOptions = {}) {
    this.#version = options.protocolVersion;
    this.#max = options.maxPacketSize ?? MAX_PACKET_SIZE;
  }

  /** The protocol version packets are decoded with (undefined until set or learned from CONNECT). */
  get protocolVersion(): ProtocolVersion | undefined {
    return this.#version;
  }

  /** Sets the version for the packets that follow (those already decoded are not revisited). */
  setProtocolVersion(version: ProtocolVersion): void {
    this.#version = version;
  }

  /** Bytes held for an incomplete packet (never more than the maximum packet size). */
  get bufferedBytes(): number {
    return this.#headerLength + this.#pendingFilled;
  }

  /** Bytes currently allocated for an incomplete packet (for metrics; at most twice `bufferedBytes` or 64 KiB). */
  get reservedBytes(): number {
    return (this.#header?.length ?? 0) + (this.#pending?.length ?? 0);
  }

  /** Decoded packets (and a final error) waiting to be pulled with {@link PacketDecoder.next}. */
  get queuedPackets(): number {
    return this.#queue.length - this.#head;
  }

  /** The error that stopped the decoder, if any. */
  get error(): MqttDecodeError | undefined {
    return this.#failure?.error;
  }

  /**
   * Feeds received bytes; decodes every packet they complete. Never throws. After an error,
   * further input is ignored.
   */
  push(chunk: Uint8Array): void {
    const n = chunk.length;
    let pos = 0;
    while (pos < n && this.#failure === undefined) {
      if (this.#pending !== undefined) {
        const take = Math.min(n - pos, this.#pendingTotal - this.#pendingFilled);
        const pending = this.#reserve(this.#pendingFilled + take);
        pending.set(chunk.subarray(pos, pos + take), this.#pendingFilled);
        this.#pendingFilled += take;
        pos += take;
        if (this.#pendingFilled === this.#pendingTotal) {
          this.#pending = undefined;
          this.#pendingFilled = 0;
          this.#decode(pending, 0, this.#pendingBodyStart, pending.length);
        }
      } else if (this.#headerLength > 0) {
        (this.#header ??= new Uint8Array(FIXED_HEADER_MAX))[this.#headerLength++] = chunk[pos++] ?? 0;
        this.#headerComplete();
      } else {
        pos = this.#inPlace(chunk, pos, n);
      }
    }
  }

  /**
   * The next decoded packet or error, in stream order; undefined when more bytes are needed.
   * After a failure, returns that same failure on every call.
   */
  next(): DecodeResult | undefined {
    if (this.#head < this.#queue.length) {
      this.#lastSize = this.#sizes[this.#head] ?? 0;
      const item = this.#queue[this.#head++];
      if (this.#head === this.#queue.length) {
        this.#queue = [];
        this.#sizes = [];
        this.#head = 0;
      }
      return item;
    }
    this.#lastSize = 0;
    return this.#failure;
  }

  /** Size in bytes of the packet {@link PacketDecoder.next} returned last (0 after an error or nothing). */
  get lastPacketBytes(): number {
    return this.#lastSize;
  }

  // At a packet boundary inside `chunk`: decode in place when the whole packet is there,
  // otherwise start buffering. Returns the new position.
  #inPlace(chunk: Uint8Array, pos: number, n: number): number {
    const len = n - pos < 2 ? VARINT_INCOMPLETE : readVarint(chunk, pos + 1, n);
    if (len === VARINT_MALFORMED) {
      this.#fail(malformed("malformed remaining length"));
      return n;
    }
    if (len === VARINT_INCOMPLETE) {
      (this.#header ??= new Uint8Array(FIXED_HEADER_MAX)).set(chunk.subarray(pos, n));
      this.#headerLength = n - pos;
      return n;
    }
    const headerLength = 1 + varintLength(len);
    const total = headerLength + len;
    if (total > this.#max) {
      this.#fail(tooLarge(total, this.#max));
      return n;
    }
    if (pos + total <= n) {
      this.#decode(chunk, pos, pos + headerLength, pos + total);
      return pos + total;
    }
    this.#startPending(total, headerLength, n - pos);
    this.#reserve(n - pos).set(chunk.subarray(pos, n));
    this.#pendingFilled = n - pos;
    return n;
  }

  // Called after each byte added to a split fixed header.
  #headerComplete(): void {
    const header = this.#header;
    if (this.#headerLength < 2 || header === undefined) return;
    const len = readVarint(header, 1, this.#headerLength);
    if (len === VARINT_INCOMPLETE) return;
    if (len === VARINT_MALFORMED) {
      this.#fail(malformed("malformed remaining length"));
      return;
    }
    const headerLength = this.#headerLength;
    const total = headerLength + len;
    this.#headerLength = 0;
    if (total > this.#max) {
      this.#fail(tooLarge(total, this.#max));
      return;
    }
    if (len === 0) {
      this.#decode(header.slice(0, headerLength), 0, headerLength, total);
      return;
    }
    this.#startPending(total, headerLength, headerLength);
    this.#reserve(headerLength).set(header.subarray(0, headerLength));
    this.#pendingFilled = headerLength;
  }

  #startPending(total: number, headerLength: number, available: number): void {
    this.#pendingTotal = total;
    this.#pendingBodyStart = headerLength;
    this.#pendingFilled = 0;
    this.#pending = new Uint8Array(Math.min(total, Math.max(INITIAL_RESERVE, available * 2)));
  }

  // Returns the pending buffer with room for `needed` bytes, growing it (doubling) if needed.
  #reserve(needed: number): Uint8Array {
    const current = this.#pending ?? new Uint8Array(0);
    if (needed <= current.length) return current;
    const grown = new Uint8Array(Math.min(this.#pendingTotal, Math.max(needed, current.length * 2)));
    grown.set(current.subarray(0, this.#pendingFilled));
    this.#pending = grown;
    return grown;
  }

  #decode(buf: Uint8Array, packetStart: number, bodyStart: number, end: number): void {
    try {
      const packet = decodeBody(buf[packetStart] ?? 0, buf, bodyStart, end, this.#version);
      if (packet.type === "connect" && this.#version === undefined) {
        this.#version = packet.protocolVersion === 5 ? 5 : 4;
      }
      this.#queue.push({ ok: true, packet });
      this.#sizes.push(end - packetStart);
    } catch (e) {
      this.#fail(asDecodeError(e));
    }
  }

  #fail(error: MqttDecodeError): void {
    this.#failure = { ok: false, error };
    this.#queue.push(this.#failure);
    this.#sizes.push(0);
    this.#header?.fill(0);
    this.#headerLength = 0;
    this.#pending = undefined;
    this.#pendingTotal = 0;
    this.#pendingFilled = 0;
  }
}

function tooLarge(total: number, max: number): MqttDecodeError {
  return new MqttDecodeError(0x95, `packet of ${total} bytes exceeds the maximum of ${max}`);
}
