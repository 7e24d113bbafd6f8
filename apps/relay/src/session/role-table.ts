import type { LiteStreamReader } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import type { StreamIo } from "./stream-io.js";

/**
 * The session's stream table as a module sees it: the module files the roles it gives its own
 * streams (`R`, declared beside the module) and forgets them when they end. Only the dispatcher
 * reads a stream's role to route by it; a module can compare a role it filed, not read another's.
 */
export interface RoleTable<R> {
  set(id: StreamId, role: R): unknown;
  delete(id: StreamId): unknown;
  /** The role of stream `id`, to compare with one the module filed. */
  get(id: StreamId): unknown;
  values(): Iterable<{ readonly kind: string }>;
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
 * Refuses a request on bidi stream `id` the peer opened with `code`; whatever else arrives on it is
 * read and ignored.
 */
export function turnDown(io: StreamIo, roles: RoleTable<IgnoreRole>, id: StreamId, reader: LiteStreamReader, code: number): void {
  roles.set(id, { kind: "ignore", reader });
  refuse(io, id, true, code);
}

/** Turns a stream down: STOP_SENDING, and RESET too when it is bidirectional. */
export function refuse(io: StreamIo, id: StreamId, bidi: boolean, code: number): void {
  io.stopSending(id, code);
  if (bidi) io.reset(id, code);
}
