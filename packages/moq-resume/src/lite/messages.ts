import {
  type Announce,
  type AnnounceInit,
  type AnnounceOk,
  type AnnounceRequest,
  writeAnnounce,
  writeAnnounceInit,
  writeAnnounceOk,
  writeAnnounceRequest,
} from "./announce.js";
import { type Fetch, writeFetch } from "./fetch.js";
import { type Goaway, writeGoaway } from "./goaway.js";
import { type Frame, FrameEncoder, type GroupHeader, writeGroupHeader } from "./group.js";
import { type LiteLimits, resolveLimits } from "./limits.js";
import { type Probe, writeProbe } from "./probe.js";
import {
  type ClientSetup,
  type ServerSetup,
  type SessionInfo,
  type SetupFraming,
  writeClientSetup,
  writeServerSetup,
  writeSessionInfo,
} from "./session-stream.js";
import { type Setup, writeSetup } from "./setup.js";
import { type StreamHeader, streamAllowed, streamTypeId } from "./stream.js";
import {
  type Subscribe,
  type SubscribeDrop,
  type SubscribeEnd,
  type SubscribeOk,
  type SubscribeStart,
  type SubscribeUpdate,
  writeSubscribe,
  writeSubscribeResponse,
  writeSubscribeUpdate,
} from "./subscribe.js";
import { type Track, type TrackInfo, writeTrack, writeTrackInfo } from "./track.js";
import { type LiteVersion, isLegacy, unreachable, versionError } from "./version.js";
import { ByteWriter } from "./writer.js";

/** Every message a lite stream can carry, discriminated by `type`. */
export type LiteMessage =
  | StreamHeader
  | AnnounceRequest
  | AnnounceInit
  | AnnounceOk
  | Announce
  | Subscribe
  | SubscribeUpdate
  | SubscribeOk
  | SubscribeDrop
  | SubscribeStart
  | SubscribeEnd
  | GroupHeader
  | Frame
  | Fetch
  | Probe
  | Goaway
  | Track
  | TrackInfo
  | Setup
  | ClientSetup
  | ServerSetup
  | SessionInfo;

/** Context some messages need to encode. */
export interface EncodeOptions {
  /** Limits checked on encode too (path parts, hops, parameters). */
  readonly limits?: Partial<LiteLimits>;
  /** Framing of the 0x20/0x21 SETUP; `draft14` by default (what real clients send). */
  readonly setupFraming?: SetupFraming;
  /** lite-05 frames: the previous frame's timestamp on the same stream (0 for the first). */
  readonly previousTimestamp?: number;
}

/**
 * Appends `msg`, fully framed for `version` (size prefix, response type id, frame header), to
 * `w`. Throws {@link LiteError} (code 18, or 9 for a message the version lacks) on values it
 * cannot encode; encoding is our own data, so this is a caller bug, not peer input.
 */
export function writeMessage(w: ByteWriter, msg: LiteMessage, version: LiteVersion, options: EncodeOptions = {}): void {
  writeResolved(w, msg, version, resolveLimits(options.limits), options);
}

/** {@link writeMessage} with limits already resolved (the per-stream writer's hot path). */
export function writeResolved(w: ByteWriter, msg: LiteMessage, version: LiteVersion, limits: LiteLimits, options: EncodeOptions): void {
  switch (msg.type) {
    case "stream_header":
      if (!streamAllowed(msg.kind, version)) throw versionError(`${msg.kind} stream`, version, true);
      w.varint(streamTypeId(msg.kind));
      return;
    case "announce_request":
      writeAnnounceRequest(w, msg, version, limits);
      return;
    case "announce_init":
      writeAnnounceInit(w, msg, version, limits);
      return;
    case "announce_ok":
      writeAnnounceOk(w, msg, version);
      return;
    case "announce":
      writeAnnounce(w, msg, version, limits);
      return;
    case "subscribe":
      writeSubscribe(w, msg, version, limits);
      return;
    case "subscribe_update":
      writeSubscribeUpdate(w, msg, version);
      return;
    case "subscribe_ok":
    case "subscribe_drop":
    case "subscribe_start":
    case "subscribe_end":
      writeSubscribeResponse(w, msg, version);
      return;
    case "group":
      writeGroupHeader(w, msg, version);
      return;
    case "frame": {
      new FrameEncoder(version, options.previousTimestamp).write(w, msg.payload, msg.timestamp);
      return;
    }
    case "fetch":
      writeFetch(w, msg, version, limits);
      return;
    case "probe":
      writeProbe(w, msg, version);
      return;
    case "goaway":
      writeGoaway(w, msg, version);
      return;
    case "track":
      writeTrack(w, msg, version, limits);
      return;
    case "track_info":
      writeTrackInfo(w, msg, version);
      return;
    case "setup":
      writeSetup(w, msg, version, limits);
      return;
    case "client_setup":
      writeClientSetup(w, msg, options.setupFraming ?? "draft14", limits);
      return;
    case "server_setup":
      writeServerSetup(w, msg, options.setupFraming ?? "draft14", limits);
      return;
    case "session_info":
      if (!isLegacy(version)) throw versionError("SESSION_INFO", version, true);
      writeSessionInfo(w, msg);
      return;
    default:
      return unreachable(msg);
  }
}

/** {@link writeMessage} into a fresh buffer. */
export function encodeMessage(msg: LiteMessage, version: LiteVersion, options: EncodeOptions = {}): Uint8Array {
  const w = new ByteWriter(msg.type === "frame" ? msg.payload.length + 16 : 64);
  writeMessage(w, msg, version, options);
  return w.finish();
}
