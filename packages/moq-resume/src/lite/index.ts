/**
 * `@handoff/moq-resume/lite`: a sans-I/O moq-lite wire codec (lite-01 to lite-06).
 * {@link LiteStreamReader} decodes a stream from arbitrary chunks and reports malformed input as
 * {@link LiteError} results; {@link LiteStreamWriter} encodes a stream's header and messages;
 * {@link FrameEncoder} writes a group's frames; datagrams have their own pair of functions. The
 * per-message readers and writers, the varint and the parameter codec stay inside the package.
 * @module
 */
// Streams: read one from chunks, write one, or encode/decode whole.
export { LiteStreamReader, decodeStream, type LiteReadResult, type LiteStreamReaderOptions } from "./stream-reader.js";
export { LiteStreamWriter } from "./stream-writer.js";
export { ByteWriter } from "./writer.js";
export { encodeMessage, type EncodeOptions, type LiteMessage } from "./messages.js";
export { BidiStreamType, UniStreamType, type BidiKind, type StreamHeader, type StreamKind, type UniKind } from "./stream.js";
export { DEFAULT_LIMITS, type LiteLimits } from "./limits.js";
// Groups and frames, and datagrams (a group of one frame).
export { FrameEncoder, MAX_FRAME_HEADER, framesHaveTimestamps, type Frame, type GroupHeader } from "./group.js";
export { MAX_DATAGRAM_SIZE, decodeDatagram, encodeDatagram, type Datagram } from "./datagram.js";
// The messages.
export type { Announce, AnnounceInit, AnnounceOk, AnnounceRequest, AnnounceStatus } from "./announce.js";
export type { Fetch } from "./fetch.js";
export type { Goaway } from "./goaway.js";
export type { SetupParameter } from "./parameters.js";
export type { Probe } from "./probe.js";
export { selectVersion, type ClientSetup, type ServerSetup, type SessionInfo, type SetupFraming } from "./session-stream.js";
export type { ProbeLevel, Setup, SetupRole } from "./setup.js";
export type { FrameBounds, Subscribe, SubscribeDrop, SubscribeEnd, SubscribeOk, SubscribeResponse, SubscribeStart, SubscribeUpdate } from "./subscribe.js";
export type { Track, TrackInfo } from "./track.js";
// Versions, their ALPNs and what each carries.
export {
  ALPN_LEGACY,
  LITE_01,
  LITE_02,
  LITE_03,
  LITE_04,
  LITE_05,
  LITE_06,
  LITE_06_WIP,
  LITE_VERSIONS,
  hasAnnounceIds,
  hasExcludeHop,
  hasExtendedSubscribe,
  hasFrameBounds,
  hasGoaway,
  hasHopIds,
  hasProbeRtt,
  hasTrackStream,
  isLegacy,
  isLite06,
  isLiteVersion,
  liteAlpn,
  liteVersionName,
  versionFromAlpn,
  type LiteVersion,
} from "./version.js";
// Broadcast paths.
export { joinPath, normalizePath, pathParts, stripPathPrefix } from "./path.js";
// Errors.
export { LiteError, LiteErrorCode, type LiteErrorReason, type LiteErrorScope, type LiteResult } from "./errors.js";
