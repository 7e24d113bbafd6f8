/**
 * The track model: broadcast → track → group → frame, with a bounded group cache and readers in
 * arrival or sequence order.
 * @module
 */
export { Broadcast } from "./broadcast.js";
export { GroupCache, type CacheLimits } from "./cache.js";
export {
  ClosedError,
  DuplicateGroupError,
  ModelError,
  ModelErrorCode,
  TrackAbortedError,
  TrackDroppedError,
} from "./errors.js";
export type { FeedReader, ReaderFeed, ReaderPrefs, TrackTerminal } from "./feed.js";
export { Group, type GroupOptions, type GroupState, type StoredFrame } from "./group.js";
export { GroupReader, type FrameEvent } from "./group-reader.js";
export { DEFAULT_TRACK_INFO, trackInfo, type TrackInfo } from "./info.js";
export { TrackReader, type GroupEvent, type ReaderOptions } from "./reader.js";
export { Track, type TrackOptions } from "./track.js";
export { Watchers } from "./watchers.js";
