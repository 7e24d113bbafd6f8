import { readAnnounce, readAnnounce06, readAnnounceInit, readAnnounceOk, readAnnounceRequest } from "./announce.js";
import { ByteQueue } from "./byte-queue.js";
import { LiteError, LiteErrorCode, attempt, malformed } from "./errors.js";
import { readFetch } from "./fetch.js";
import { readGoaway } from "./goaway.js";
import { applyTimestampDelta, framesHaveTimestamps, readGroupHeader } from "./group.js";
import { type LiteLimits, resolveLimits } from "./limits.js";
import type { LiteMessage } from "./messages.js";
import { readProbe } from "./probe.js";
import { BodyReader } from "./reader.js";
import {
  CLIENT_SETUP_TYPE,
  SERVER_SETUP_TYPE,
  type SetupFraming,
  readClientSetup,
  readServerSetup,
  readSessionInfo,
} from "./session-stream.js";
import { readSetup } from "./setup.js";
import { type BidiKind, type StreamKind, classifyBidi, classifyUni } from "./stream.js";
import { readSubscribe, readSubscribeResponse, readSubscribeUpdate } from "./subscribe.js";
import { readTrack, readTrackInfo } from "./track.js";
import { VARINT_SHORT, VARINT_UNSAFE, unsafeVarintError, varintLength, zigzagDecode } from "./varint.js";
import { type LiteVersion, LITE_01, hasAnnounceIds, hasExtendedSubscribe, hasTrackStream, isLegacy, unreachable } from "./version.js";

/**
 * Which end of which stream a reader decodes.
 * - `accepted-bidi` / `accepted-uni`: a stream the peer opened; the reader first yields a
 *   `stream_header` with its kind, then the requests (or group) on it.
 * - `opened`: a bidi stream we opened (and wrote the type and request on); the reader decodes
 *   the peer's responses for `kind`.
 * - `setup-server` / `setup-client`: the lite-01/02 session stream, as the server (reads
 *   CLIENT_SETUP) or the client (reads SERVER_SETUP), then SESSION_INFO messages.
 */
export type LiteStreamReaderOptions =
  | {
      readonly role: "accepted-bidi" | "accepted-uni";
      readonly version: LiteVersion;
      readonly limits?: Partial<LiteLimits>;
    }
  | {
      readonly role: "opened";
      readonly kind: BidiKind;
      readonly version: LiteVersion;
      readonly limits?: Partial<LiteLimits>;
    }
  | {
      readonly role: "setup-server" | "setup-client";
      readonly framing?: SetupFraming;
      readonly limits?: Partial<LiteLimits>;
    };

/** One step of a {@link LiteStreamReader}. */
export type LiteReadResult =
  | { readonly kind: "message"; readonly message: LiteMessage }
  | { readonly kind: "need_more" }
  | { readonly kind: "end" }
  | { readonly kind: "error"; readonly error: LiteError };

type BodyDecoder = (r: BodyReader) => LiteMessage;
/** Decodes the body of a typed message (`type varint, size varint, body`) given its type. */
type TypedDecoder = (r: BodyReader, messageType: number) => LiteMessage;

type Phase =
  | { readonly t: "bidi_type" }
  | { readonly t: "uni_type" }
  | { readonly t: "setup"; readonly expect: number }
  | { readonly t: "sized"; readonly read: BodyDecoder; readonly required: boolean; next: Phase | "self" }
  | { readonly t: "typed"; readonly read: TypedDecoder }
  | { readonly t: "frames" }
  | { readonly t: "none" };

const NEED_MORE: LiteReadResult = { kind: "need_more" };
const END: LiteReadResult = { kind: "end" };
const NONE: Phase = { t: "none" };

/**
 * Incremental decoder for one lite stream. Feed it bytes in whatever pieces the transport
 * delivers ({@link push}, then {@link end} at FIN) and pull complete messages with
 * {@link next}. It buffers at most one partial item, bounded by the limits; frame payloads are
 * views into the pushed chunks whenever a frame arrived inside one chunk. Malformed input
 * yields a sticky `error` result carrying the wire code; nothing is thrown.
 */
export class LiteStreamReader {
  readonly #queue = new ByteQueue();
  readonly #limits: LiteLimits;
  readonly #version: LiteVersion;
  readonly #framing: SetupFraming;
  readonly #scope: "stream" | "session";
  #phase: Phase;
  #ended = false;
  #failure: LiteError | undefined;
  #previousTimestamp = 0;

  /** A reader for the stream described by `options`. */
  constructor(options: LiteStreamReaderOptions) {
    this.#limits = resolveLimits(options.limits);
    switch (options.role) {
      case "accepted-bidi":
        this.#version = options.version;
        this.#framing = "draft14";
        this.#scope = "stream";
        this.#phase = { t: "bidi_type" };
        break;
      case "accepted-uni":
        this.#version = options.version;
        this.#framing = "draft14";
        this.#scope = "stream";
        this.#phase = { t: "uni_type" };
        break;
      case "opened":
        this.#version = options.version;
        this.#framing = "draft14";
        this.#scope = "stream";
        this.#phase = this.#responsePhase(options.kind);
        break;
      case "setup-server":
      case "setup-client":
        // SESSION_INFO has one layout on lite-01 and lite-02, so the negotiated one is not needed.
        this.#version = LITE_01;
        this.#framing = options.framing ?? "draft14";
        this.#scope = "session";
        this.#phase = { t: "setup", expect: options.role === "setup-server" ? CLIENT_SETUP_TYPE : SERVER_SETUP_TYPE };
        break;
      default:
        unreachable(options);
    }
  }

  /** Bytes buffered and not yet decoded (bounded by the limits plus a few header bytes). */
  get buffered(): number {
    return this.#queue.length;
  }

  /** The error the stream failed with, if it did. */
  get error(): LiteError | undefined {
    return this.#failure;
  }

  /** Adds received bytes. Bytes after {@link end} are a protocol violation. */
  push(chunk: Uint8Array): void {
    if (this.#failure !== undefined) return;
    if (this.#ended) {
      this.#fail(new LiteError(LiteErrorCode.ProtocolViolation, "unexpected_message", "bytes pushed after the stream ended"));
      return;
    }
    this.#queue.push(chunk);
  }

  /** Marks the stream finished (FIN). */
  end(): void {
    this.#ended = true;
  }

  /** Decodes every complete message buffered now; stops at need_more, end or error. */
  drain(): { readonly messages: LiteMessage[]; readonly status: Exclude<LiteReadResult, { kind: "message" }> } {
    const messages: LiteMessage[] = [];
    for (;;) {
      const step = this.next();
      if (step.kind !== "message") return { messages, status: step };
      messages.push(step.message);
    }
  }

  /** The next complete message, or why there is none yet. */
  next(): LiteReadResult {
    if (this.#failure !== undefined) return { kind: "error", error: this.#failure };
    const result = attempt(() => this.#step());
    if (!result.ok) return this.#fail(result.error);
    return result.value;
  }

  #fail(error: LiteError): LiteReadResult {
    this.#failure = error.withScope(this.#scope);
    // Nothing more will be decoded, so hold on to nothing.
    this.#queue.clear();
    return { kind: "error", error: this.#failure };
  }

  #starved(required: boolean): LiteReadResult {
    if (!this.#ended) return NEED_MORE;
    if (this.#queue.length > 0) throw malformed("truncated", "stream ended in the middle of a message");
    if (required) throw malformed("truncated", "stream ended before a required message");
    return END;
  }

  #varintAt(index: number): number {
    const v = this.#queue.peekVarint(index);
    if (v === VARINT_UNSAFE) throw unsafeVarintError();
    return v;
  }

  #lengthAt(index: number): number {
    return varintLength(this.#queue.byteAt(index));
  }

  #step(): LiteReadResult {
    const phase = this.#phase;
    switch (phase.t) {
      case "bidi_type":
      case "uni_type": {
        const id = this.#varintAt(0);
        if (id === VARINT_SHORT) return this.#starved(false);
        this.#queue.skip(this.#lengthAt(0));
        const kind = phase.t === "bidi_type" ? classifyBidi(id, this.#version) : classifyUni(id, this.#version);
        if (!kind.ok) throw kind.error;
        this.#phase = this.#requestPhase(kind.value);
        return message({ type: "stream_header", kind: kind.value });
      }
      case "setup":
        return this.#stepSetup(phase.expect);
      case "sized": {
        const size = this.#varintAt(0);
        if (size === VARINT_SHORT) return this.#starved(phase.required);
        if (size > this.#limits.maxMessageSize) {
          throw malformed("too_large", `message of ${size} bytes exceeds the limit of ${this.#limits.maxMessageSize}`);
        }
        const head = this.#lengthAt(0);
        if (this.#queue.length < head + size) return this.#starved(true);
        this.#queue.skip(head);
        const msg = this.#decodeBody(this.#queue.take(size), phase.read);
        this.#phase = phase.next === "self" ? phase : phase.next;
        return message(msg);
      }
      case "typed":
        return this.#stepTyped(phase.read);
      case "frames":
        return this.#stepFrame();
      case "none":
        if (this.#queue.length > 0) {
          throw new LiteError(LiteErrorCode.ProtocolViolation, "unexpected_message", "bytes after the last message this stream may carry");
        }
        return this.#starved(false);
      default:
        return unreachable(phase);
    }
  }

  #decodeBody(body: Uint8Array, read: BodyDecoder): LiteMessage {
    const r = new BodyReader(body, this.#limits);
    const msg = read(r);
    r.finish();
    return msg;
  }

  #stepSetup(expect: number): LiteReadResult {
    const first = this.#queue.byteAt(0);
    if (first < 0) return this.#starved(true);
    // The reference reads this type as a single byte (0x20 / 0x21).
    if (first !== expect) throw malformed("unknown_type", `expected setup type 0x${expect.toString(16)}, got 0x${first.toString(16)}`);
    let size: number;
    let head: number;
    if (this.#framing === "draft14") {
      if (this.#queue.length < 3) return this.#starved(true);
      size = (this.#queue.byteAt(1) << 8) | this.#queue.byteAt(2);
      head = 3;
    } else {
      size = this.#varintAt(1);
      if (size === VARINT_SHORT) return this.#starved(true);
      head = 1 + this.#lengthAt(1);
    }
    if (size > this.#limits.maxMessageSize) throw malformed("too_large", `setup of ${size} bytes exceeds the limit`);
    if (this.#queue.length < head + size) return this.#starved(true);
    this.#queue.skip(head);
    const framing = this.#framing;
    const limits = this.#limits;
    const msg = this.#decodeBody(this.#queue.take(size), (r) =>
      expect === CLIENT_SETUP_TYPE ? readClientSetup(r, framing, limits) : readServerSetup(r, framing, limits),
    );
    this.#phase = repeat((r) => readSessionInfo(r));
    return message(msg);
  }

  #stepTyped(read: TypedDecoder): LiteReadResult {
    const typ = this.#varintAt(0);
    if (typ === VARINT_SHORT) return this.#starved(false);
    const typeLen = this.#lengthAt(0);
    const size = this.#varintAt(typeLen);
    if (size === VARINT_SHORT) return this.#starved(true);
    if (size > this.#limits.maxMessageSize) throw malformed("too_large", `response of ${size} bytes exceeds the limit`);
    const head = typeLen + this.#lengthAt(typeLen);
    if (this.#queue.length < head + size) return this.#starved(true);
    this.#queue.skip(head);
    return message(this.#decodeBody(this.#queue.take(size), (r) => read(r, typ)));
  }

  #stepFrame(): LiteReadResult {
    let at = 0;
    let timestamp: number | undefined;
    if (framesHaveTimestamps(this.#version)) {
      const delta = this.#varintAt(0);
      if (delta === VARINT_SHORT) return this.#starved(false);
      at = this.#lengthAt(0);
      timestamp = applyTimestampDelta(this.#previousTimestamp, zigzagDecode(delta));
    }
    const size = this.#varintAt(at);
    if (size === VARINT_SHORT) return this.#starved(at > 0);
    if (size > this.#limits.maxFrameSize) {
      throw new LiteError(LiteErrorCode.FrameTooLarge, "too_large", `frame of ${size} bytes exceeds the limit of ${this.#limits.maxFrameSize}`);
    }
    const head = at + this.#lengthAt(at);
    if (this.#queue.length < head + size) return this.#starved(true);
    this.#queue.skip(head);
    if (timestamp !== undefined) this.#previousTimestamp = timestamp;
    return message({ type: "frame", payload: this.#queue.take(size), timestamp });
  }

  /** What follows the stream type on a stream the peer opened. */
  #requestPhase(kind: StreamKind): Phase {
    const v = this.#version;
    const limits = this.#limits;
    switch (kind) {
      case "announce":
        return once((r) => readAnnounceRequest(r, v), NONE);
      case "subscribe":
        return once((r) => readSubscribe(r, v), hasExtendedSubscribe(v) ? repeat((r) => readSubscribeUpdate(r, v)) : NONE);
      case "fetch":
        return once((r) => readFetch(r, v), NONE);
      case "probe":
        return repeat((r) => readProbe(r, v));
      case "goaway":
        // A second GOAWAY is a protocol violation (draft), so nothing may follow the first.
        return once((r) => readGoaway(r, v), NONE);
      case "track":
        return once((r) => readTrack(r, v), NONE);
      case "group":
        return once((r) => readGroupHeader(r, v), { t: "frames" });
      case "setup":
        return once((r) => readSetup(r, v, limits), NONE);
      default:
        return unreachable(kind);
    }
  }

  /** What the peer answers on a bidi stream we opened. */
  #responsePhase(kind: BidiKind): Phase {
    const v = this.#version;
    const limits = this.#limits;
    const announces: Phase = hasAnnounceIds(v)
      ? { t: "typed", read: (r, typ) => readAnnounce06(r, typ, limits) }
      : repeat((r) => readAnnounce(r, v, limits));
    switch (kind) {
      case "announce":
        if (isLegacy(v)) return once((r) => readAnnounceInit(r, v, limits), announces);
        if (hasTrackStream(v)) return once((r) => readAnnounceOk(r, v), announces);
        return announces;
      case "subscribe":
        return isLegacy(v) ? once((r) => readSubscribeResponse(r, 0, v), NONE) : { t: "typed", read: (r, typ) => readSubscribeResponse(r, typ, v) };
      case "fetch":
        return { t: "frames" };
      case "probe":
        return repeat((r) => readProbe(r, v));
      case "goaway":
        return NONE;
      case "track":
        return once((r) => readTrackInfo(r, v), NONE);
      default:
        return unreachable(kind);
    }
  }
}

function message(msg: LiteMessage): LiteReadResult {
  return { kind: "message", message: msg };
}

function once(read: BodyDecoder, next: Phase): Phase {
  return { t: "sized", read, required: true, next };
}

function repeat(read: BodyDecoder): Phase {
  return { t: "sized", read, required: false, next: "self" };
}

/**
 * Decodes a complete stream given as chunks (then FIN): every message, and the error or end
 * that stopped it. Convenience over {@link LiteStreamReader} for tests and tools.
 */
export function decodeStream(
  chunks: readonly Uint8Array[],
  options: LiteStreamReaderOptions,
): { readonly messages: LiteMessage[]; readonly error: LiteError | undefined } {
  const reader = new LiteStreamReader(options);
  for (const c of chunks) reader.push(c);
  reader.end();
  const { messages, status } = reader.drain();
  return { messages, error: status.kind === "error" ? status.error : undefined };
}
