/**
 * Test helpers: a {@link Tape} pulls everything a reader can read right now and records it, so a
 * test states what a reader got as a short list of strings. Not exported from the package.
 * @module
 */
import type { Group } from "./group.js";
import type { GroupReader } from "./group-reader.js";
import type { TrackReader } from "./reader.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Encodes a frame payload from text. */
export function frame(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Writes text frames into a group and returns it. */
export function fill(group: Group, ...frames: string[]): Group {
  for (const text of frames) group.write(frame(text));
  return group;
}

/**
 * Records what a reader gets: `+N` a group handed out, `N:x` a frame, `N.` a group's end, `Nx` the
 * rest of a group lost, `N~a-b` a gap of frames, `lost N`, `lagged K`, `restarted`, and the
 * terminal (`finished`, or the error's name).
 */
export class Tape {
  /** Everything read, in order. */
  readonly log: string[] = [];
  /** Frames read per group. */
  readonly frames = new Map<number, string[]>();
  /** Groups handed out, in order (repeats would show here). */
  readonly handed: number[] = [];
  /** Groups reported lost. */
  readonly lost: number[] = [];
  /** Frame gaps reported per group. */
  readonly gaps = new Map<number, [number, number][]>();
  /** How each group read ended: `end` or `lost`. */
  readonly endings = new Map<number, "end" | "lost">();
  /** Lagged counts reported. */
  lagged = 0;
  /** The terminal event, once seen. */
  terminal: string | undefined;
  readonly #open: GroupReader[] = [];
  #ending: string | undefined;

  constructor(
    readonly reader: TrackReader,
    readonly order: "recv" | "next" = "recv",
  ) {}

  /** Reads everything available now; returns the entries added. */
  pump(): string[] {
    const before = this.log.length;
    let progress = true;
    while (progress) {
      progress = this.#groups();
      for (const reader of [...this.#open]) if (this.#frames(reader)) progress = true;
    }
    // The terminal is logged once the groups already handed out are read to their end.
    if (this.#ending !== undefined && this.#open.length === 0 && this.terminal === undefined) {
      this.terminal = this.#ending;
      this.log.push(this.#ending);
    }
    return this.log.slice(before);
  }

  /** The frames read of group `sequence`, joined. */
  text(sequence: number): string {
    return (this.frames.get(sequence) ?? []).join("");
  }

  #groups(): boolean {
    let progress = false;
    for (;;) {
      const event = this.order === "recv" ? this.reader.recvGroup() : this.reader.nextGroup();
      switch (event.kind) {
        case "group":
          this.handed.push(event.group.sequence);
          this.log.push(`+${String(event.group.sequence)}`);
          this.#open.push(event.group);
          progress = true;
          continue;
        case "lost":
          this.lost.push(event.sequence);
          this.log.push(`lost ${String(event.sequence)}`);
          progress = true;
          continue;
        case "lagged":
          this.lagged += event.count;
          this.log.push(`lagged ${String(event.count)}`);
          progress = true;
          continue;
        case "restarted":
          this.log.push("restarted");
          progress = true;
          continue;
        case "pending":
          return progress;
        case "finished":
          this.#ending = "finished";
          return progress;
        case "error":
          this.#ending = event.error.name;
          return progress;
        default: {
          const never: never = event;
          return never;
        }
      }
    }
  }

  #frames(reader: GroupReader): boolean {
    const seq = reader.sequence;
    let progress = false;
    for (;;) {
      const event = reader.readFrame();
      switch (event.kind) {
        case "frame": {
          const text = decoder.decode(event.payload);
          const list = this.frames.get(seq) ?? [];
          list.push(text);
          this.frames.set(seq, list);
          this.log.push(`${String(seq)}:${text}`);
          progress = true;
          continue;
        }
        case "gap":
          this.gaps.set(seq, [...(this.gaps.get(seq) ?? []), [event.from, event.to]]);
          this.log.push(`${String(seq)}~${String(event.from)}-${String(event.to)}`);
          progress = true;
          continue;
        case "pending":
          return progress;
        case "end":
        case "lost":
          this.endings.set(seq, event.kind);
          this.log.push(`${String(seq)}${event.kind === "end" ? "." : "x"}`);
          this.#open.splice(this.#open.indexOf(reader), 1);
          return true;
        default: {
          const never: never = event;
          return never;
        }
      }
    }
  }
}
