/**
 * A broadcast: the tracks one publisher offers under a path. The producer side adds tracks; the
 * consumer side looks them up to subscribe.
 * @module
 */
import { ClosedError } from "./errors.js";
import { Track, type TrackOptions } from "./track.js";

/** A set of named tracks under one path. */
export class Broadcast {
  /** The broadcast's path, e.g. `demo/bbb`. */
  readonly path: string;
  readonly #tracks = new Map<string, Track>();
  readonly #defaults: TrackOptions;
  #closed = false;

  /** @param defaults options every track of this broadcast gets unless overridden (the clock among them) */
  constructor(path: string, defaults: TrackOptions) {
    this.path = path;
    this.#defaults = defaults;
  }

  /** Creates (or returns the existing) track `name`. Throws {@link ClosedError} once closed. */
  createTrack(name: string, options: Partial<TrackOptions> = {}): Track {
    if (this.#closed) throw new ClosedError(`broadcast ${this.path}`);
    const existing = this.#tracks.get(name);
    if (existing !== undefined) return existing;
    const track = new Track(name, { ...this.#defaults, ...options });
    this.#tracks.set(name, track);
    return track;
  }

  /** The track `name`, if published. */
  track(name: string): Track | undefined {
    return this.#tracks.get(name);
  }

  /** The published track names. */
  get trackNames(): string[] {
    return [...this.#tracks.keys()];
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Ends the broadcast: every track finishes (`aborted` with a reason aborts them instead). */
  close(reason?: number): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const track of this.#tracks.values()) {
      if (reason === undefined) track.finish();
      else track.abort(reason);
    }
  }
}
