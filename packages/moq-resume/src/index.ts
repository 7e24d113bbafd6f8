/**
 * @handoff/moq-resume: a sans-I/O moq-lite track model (broadcast → track → group → frame, a
 * bounded group cache, readers in arrival or sequence order) and resume across upstream takeovers
 * ({@link ResumeTrack}). The wire codec is `@handoff/moq-resume/lite`.
 * @module
 */
// The track model.
export {
  Broadcast,
  ClosedError,
  DEFAULT_TRACK_INFO,
  DuplicateGroupError,
  Group,
  GroupCache,
  GroupReader,
  ModelError,
  ModelErrorCode,
  Track,
  TrackAbortedError,
  TrackDroppedError,
  TrackReader,
  trackInfo,
  type CacheLimits,
  type FeedReader,
  type FrameEvent,
  type GroupEvent,
  type GroupOptions,
  type GroupState,
  type StoredFrame,
  type ReaderFeed,
  type ReaderOptions,
  type ReaderPrefs,
  type TrackInfo,
  type TrackOptions,
  type TrackTerminal,
} from "./model/index.js";
// Resume across upstream takeovers.
export {
  MAX_SEGMENTS,
  ResumeTrack,
  TRACK_IDLE_LINGER_MS,
  type Boundary,
  type Demand,
  type ResumeOptions,
  type Takeover,
} from "./resume/index.js";
