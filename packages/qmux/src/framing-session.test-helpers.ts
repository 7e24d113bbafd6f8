// Helpers shared by this folder's tests (not part of the public API).
import type { FramingEvent } from "./events.js";
import type { Frame } from "./frame.js";
import { encodeQmuxFrame } from "./qmux-codec.js";
import type { FramingSession } from "./framing-session.js";
import { REFERENCE_PARAMS, type TransportParams } from "./transport-params.js";
import { qmuxMessageWire } from "./wire.js";

/** Application-level events (everything but "send") each side saw during a `pump`. */
export interface Pumped {
  readonly a: FramingEvent[];
  readonly b: FramingEvent[];
}

/** Delivers every "send" of each side to the other until both are quiet. */
export function pump(a: FramingSession, b: FramingSession, limit = 10_000): Pumped {
  const seenA: FramingEvent[] = [];
  const seenB: FramingEvent[] = [];
  for (let round = 0; round < limit; round++) {
    const fromA = a.poll();
    const fromB = b.poll();
    if (fromA.length === 0 && fromB.length === 0) return { a: seenA, b: seenB };
    for (const event of fromA) {
      if (event.kind === "send") b.receive(event.bytes);
      else seenA.push(event);
    }
    for (const event of fromB) {
      if (event.kind === "send") a.receive(event.bytes);
      else seenB.push(event);
    }
  }
  throw new Error("pump did not settle");
}

/** The frames a session put on the wire (qmux message carrier), plus its other events. */
export function drainFrames(session: FramingSession): { frames: Frame[]; events: FramingEvent[] } {
  const wire = qmuxMessageWire();
  const frames: Frame[] = [];
  const events: FramingEvent[] = [];
  for (const event of session.poll()) {
    if (event.kind !== "send") {
      events.push(event);
      continue;
    }
    const { frames: decoded, error } = wire.push(event.bytes);
    if (error !== undefined) throw error;
    frames.push(...decoded);
  }
  return { frames, events };
}

/** Feeds hand-written frames to a session, one WebSocket message each. */
export function feed(session: FramingSession, ...frames: Frame[]): void {
  for (const frame of frames) session.receive(encodeQmuxFrame(frame));
}

/** A transport-parameters frame with the reference defaults, overridden by `params`. */
export function paramsFrame(params: Partial<TransportParams> = {}): Frame {
  return { type: "transport-parameters", params: { ...REFERENCE_PARAMS, ...params } };
}

/** The "closed" event among `events`, if any. */
export function closedEvent(events: readonly FramingEvent[]): Extract<FramingEvent, { kind: "closed" }> | undefined {
  return events.find((e): e is Extract<FramingEvent, { kind: "closed" }> => e.kind === "closed");
}

/** Concatenates the data of all "stream-data" events of one stream. */
export function streamBytes(events: readonly FramingEvent[], streamId: number): { bytes: Uint8Array; fin: boolean } {
  const parts: Uint8Array[] = [];
  let fin = false;
  for (const e of events) {
    if (e.kind === "stream-data" && e.streamId === streamId) {
      parts.push(e.bytes);
      fin ||= e.fin;
    }
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const bytes = new Uint8Array(total);
  let pos = 0;
  for (const p of parts) {
    bytes.set(p, pos);
    pos += p.length;
  }
  return { bytes, fin };
}
