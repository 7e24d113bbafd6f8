/**
 * @handoff/seqlog: the vocabulary both protocol cores share — sequence numbers, generations and
 * fences, range sets, bounded sequenced queues, and segment cursors.
 * @module
 */
export { ManualClock, type Clock } from "./clock.js";
export { Fence, GENERATIONS_PER_MS, GenerationAllocator, GenerationExhaustedError, type GenerationSeed } from "./generation.js";
export { RangeSet, type SeqRange } from "./range-set.js";
export {
  SeqQueue,
  type Cleared,
  type PushRefusal,
  type PushResult,
  type QueueEntry,
  type QueueLimits,
  type RequeueResult,
  type SeqQueueOptions,
} from "./seq-queue.js";
export { MAX_SEQ, SeqCounter, SeqRangeError, checkSeq } from "./seq.js";
export {
  SegmentBoundsError,
  SegmentCursor,
  SegmentList,
  segmentCovers,
  segmentProduced,
  type ArrivalEntry,
  type CursorOrder,
  type CursorStep,
  type Segment,
  type SegmentCursorOptions,
  type SegmentItem,
  type SegmentKind,
  type SegmentSource,
  type SwitchOptions,
} from "./segments.js";
