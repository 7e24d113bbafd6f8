/**
 * Test doubles for the origin: a route source whose upstream copies are plain tracks the test
 * fills by hand, and a reader that drains a resumed track into a list of groups and frames.
 */
import { ManualClock } from "@handoff/seqlog";
import { Track, type Boundary, type GroupReader, type ResumeTrack, type TrackReader } from "@handoff/moq-resume";
import type { RouteSource } from "./route.js";
import type { TrackInfoAnswer } from "./track-infos.js";

/** One upstream subscription a {@link FakeSource} was asked for. */
export interface FakeCopy {
  readonly path: string;
  readonly track: Track;
  readonly boundary: Boundary | undefined;
  cancelled: boolean;
  capped: number | undefined;
  /** What the copy's peer said it starts at (SUBSCRIBE_START), set by the test. */
  startedAt: number | undefined;
}

/** A route source that records its upstream subscriptions and can refuse them. */
export interface FakeSource extends RouteSource {
  readonly copies: FakeCopy[];
  /** Path and track of every subscription asked for. */
  readonly asked: string[];
  refuse: boolean;
  /** The TRACK_INFO queries asked of it, for the test to answer. */
  readonly infoQueries: { readonly path: string; readonly track: string; readonly answer: TrackInfoAnswer }[];
}

/** A fake route source with id `id`. */
export function fakeSource(id: number): FakeSource {
  const source: FakeSource = {
    id,
    copies: [],
    asked: [],
    refuse: false,
    infoQueries: [],
    askTrackInfo(path, track, answer) {
      if (source.refuse) return false;
      source.infoQueries.push({ path, track, answer });
      return true;
    },
    subscribeUpstream(path, name, _priority, place) {
      if (source.refuse) return undefined;
      source.asked.push(`${path}:${name}`);
      const track = new Track(name, { clock: new ManualClock() });
      const copy: FakeCopy = { path, track, boundary: place(track), cancelled: false, capped: undefined, startedAt: undefined };
      source.copies.push(copy);
      return {
        track,
        get startedAt() {
          return copy.startedAt;
        },
        cancel: () => {
          copy.cancelled = true;
          track.finish();
        },
        cap: (last) => {
          copy.capped = last;
        },
      };
    },
  };
  return source;
}

/** The newest copy `source` was asked for (throws when none). */
export function lastCopy(source: FakeSource): FakeCopy {
  const copy = source.copies[source.copies.length - 1];
  if (copy === undefined) throw new Error(`source ${String(source.id)} has no copy`);
  return copy;
}

const text = new TextDecoder();

/** Reads a resumed track as a subscriber would: groups handed out in order and their frames. */
export class Drain {
  /** Sequences handed out, in order. */
  readonly handed: number[] = [];
  /** Frames (as text) per group. */
  readonly frames = new Map<number, string[]>();
  /** The terminal event kind, once seen. */
  terminal: string | undefined;
  readonly #reader: TrackReader<Track>;
  readonly #open: GroupReader[] = [];

  constructor(track: ResumeTrack, start?: number) {
    this.#reader = track.subscribe(start === undefined ? {} : { start });
  }

  /** Reads everything available now. */
  pump(): this {
    for (;;) {
      const event = this.#reader.recvGroup();
      if (event.kind === "group") {
        this.handed.push(event.group.sequence);
        this.#open.push(event.group);
        continue;
      }
      if (event.kind === "lost" || event.kind === "lagged" || event.kind === "restarted") continue;
      if (event.kind === "finished" || event.kind === "error") this.terminal = event.kind;
      break;
    }
    for (const group of this.#open) {
      for (let e = group.readFrame(); e.kind === "frame"; e = group.readFrame()) {
        const list = this.frames.get(group.sequence) ?? [];
        list.push(text.decode(e.payload));
        this.frames.set(group.sequence, list);
      }
    }
    return this;
  }

  /** The frames of group `sequence` joined. */
  text(sequence: number): string {
    return (this.frames.get(sequence) ?? []).join("");
  }
}
