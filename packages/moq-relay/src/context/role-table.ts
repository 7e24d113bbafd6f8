import type { LiteStreamReader } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import type { StreamIo } from "./stream-io.js";

/**
 * A role change a module learns of outside any event of the stream (a track's info answered, a
 * fetch woken by its track, a group stream opened or retired by a flush): the module reports it
 * and the dispatcher files it. Only the dispatcher writes the stream table; a module returns the
 * role it gives a stream from the event that made it.
 */
export interface RoleChanges<R> {
  /** Stream `id` takes `role`. */
  file(id: StreamId, role: R): void;
  /** Stream `id` is over: its role goes. */
  drop(id: StreamId): void;
  /** True while stream `id` still has `role`, one the module gave it (false: the stream moved on). */
  holds(id: StreamId, role: R): boolean;
}

/** What becomes of a stream after a module handled an event on it: its role stays, or is over (the dispatcher drops it). */
export type StreamFate = "keep" | "end";

/** A stream we refused: whatever else arrives on it is read and ignored. */
export interface IgnoreRole {
  readonly kind: "ignore";
  readonly reader: LiteStreamReader;
}

/** A TRACK, PROBE or FETCH stream we answered: read on to the peer's FIN, answering each PROBE. */
export interface AnsweredRole {
  readonly kind: "answered";
  readonly reader: LiteStreamReader;
}

/**
 * Refuses a request on bidi stream `id` the peer opened with `code`; returns the stream's role from
 * now on: whatever else arrives on it is read and ignored.
 */
export function turnDown(io: StreamIo, id: StreamId, reader: LiteStreamReader, code: number): IgnoreRole {
  refuse(io, id, true, code);
  return { kind: "ignore", reader };
}

/** Turns a stream down: STOP_SENDING, and RESET too when it is bidirectional. */
export function refuse(io: StreamIo, id: StreamId, bidi: boolean, code: number): void {
  io.stopSending(id, code);
  if (bidi) io.reset(id, code);
}
