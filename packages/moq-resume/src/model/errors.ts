/**
 * Typed errors of the track model. Each carries a numeric code so the wire layer can map it to the
 * protocol's reset/error code without parsing messages.
 * @module
 */

/** Error codes the model raises (kept in step with the relay's reset codes). */
export const ModelErrorCode = {
  /** The producer aborted the track or group. */
  Aborted: 1,
  /** The producer went away without finishing. */
  Dropped: 2,
  /** A group with this sequence number already exists in the track. */
  DuplicateGroup: 3,
  /** A write to a group or track that is no longer open. */
  Closed: 4,
} as const;

/** One of {@link ModelErrorCode}. */
export type ModelErrorCode = (typeof ModelErrorCode)[keyof typeof ModelErrorCode];

/** Base class of model errors. */
export class ModelError extends Error {
  /** The subclass's name, so logs show which model error it was. */
  override readonly name: string = "ModelError";
  /** The error's code. */
  readonly code: ModelErrorCode;
  constructor(code: ModelErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The producer aborted the track; `reason` is the application's code. */
export class TrackAbortedError extends ModelError {
  /** Set so logs and `err.name` checks name the subclass. */
  override readonly name = "TrackAbortedError";
  /** The application's abort code. */
  readonly reason: number;
  constructor(reason = 0) {
    super(ModelErrorCode.Aborted, `track aborted (${String(reason)})`);
    this.reason = reason;
  }
}

/** The producer was dropped without finishing or aborting. */
export class TrackDroppedError extends ModelError {
  /** Set so logs and `err.name` checks name the subclass. */
  override readonly name = "TrackDroppedError";
  constructor() {
    super(ModelErrorCode.Dropped, "track producer dropped");
  }
}

/** A group with this sequence number is already held by the track. */
export class DuplicateGroupError extends ModelError {
  /** Set so logs and `err.name` checks name the subclass. */
  override readonly name = "DuplicateGroupError";
  /** The duplicated sequence number. */
  readonly sequence: number;
  constructor(sequence: number) {
    super(ModelErrorCode.DuplicateGroup, `group ${String(sequence)} already exists`);
    this.sequence = sequence;
  }
}

/** A write to a group or track that is finished, aborted or evicted. */
export class ClosedError extends ModelError {
  /** Set so logs and `err.name` checks name the subclass. */
  override readonly name = "ClosedError";
  constructor(what: string) {
    super(ModelErrorCode.Closed, `${what} is closed`);
  }
}
