/**
 * Segments and cursors: an ordered list of segments `[start, end]`, each backed by a source, and
 * per-reader cursors over them with floors, caps (parking), and handoff from replaced segments to
 * a warm cache. Generic over the source and item types; knows nothing of any protocol.
 * @module
 */
export {
  segmentCovers,
  type ArrivalEntry,
  type Segment,
  type SegmentItem,
  type SegmentKind,
  type SegmentSource,
} from "./segment-source.js";
export { SegmentBoundsError, SegmentList, segmentProduced, type SwitchOptions } from "./segment-list.js";
export {
  SegmentCursor,
  type CursorOrder,
  type CursorStep,
  type SegmentCursorOptions,
} from "./segment-cursor.js";
