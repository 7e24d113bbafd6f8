/**
 * Resume: a track fed by successive upstream copies, surviving takeovers and parks without
 * losing or repeating a group or a frame.
 * @module
 */
export { segmentDemand, sliceDemand, type Demand } from "./demand.js";
export {
  MAX_SEGMENTS,
  ResumeTrack,
  TRACK_IDLE_LINGER_MS,
  type Boundary,
  type ResumeOptions,
  type Takeover,
} from "./resume-track.js";
export { warmCache, type WarmCacheOptions } from "./warm-cache.js";
