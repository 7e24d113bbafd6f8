import type { Group, Track } from "@handoff/moq-resume";
import { LiteStreamReader, type LiteVersion } from "@handoff/moq-resume/lite";
import { NO_MEMORY, type SessionMemory } from "../context/index.js";
import type { UpstreamSubscription } from "./upstream-subscription.js";

/**
 * A group stream the peer opened: the GROUP header names the subscription, frames fill the
 * group, FIN finishes it and a reset aborts it.
 */
export class InboundGroup {
  readonly #reader: LiteStreamReader;
  #group: Group | undefined;
  #track: Track | undefined;
  /** The subscription and sequence of the group, once its header was read. */
  #owner: { readonly sub: UpstreamSubscription; readonly sequence: number } | undefined;
  #bytes = 0;
  /** Frames still to skip at the head of a continued group. */
  #skip = 0;

  readonly #maxBytes: number;
  readonly #memory: SessionMemory;

  constructor(
    version: LiteVersion,
    /** Payload bytes the group may carry before it is aborted as too large. */
    maxBytes: number = Number.POSITIVE_INFINITY,
    /** The relay's byte budget, told of every group and every byte filed. */
    memory: SessionMemory = NO_MEMORY,
  ) {
    this.#maxBytes = maxBytes;
    this.#memory = memory;
    this.#reader = new LiteStreamReader({ role: "accepted-uni", version });
  }

  /** Stream bytes received but not decoded yet (a partial frame). */
  get buffered(): number {
    return this.#reader.buffered;
  }

  /**
   * Feeds stream bytes. `lookup` resolves the subscribe id of the header to the subscription
   * whose copy to fill. Returns what the session must do with the stream: `oversized` means the
   * group went past its byte limit and was aborted (readers see it lost).
   */
  receive(
    bytes: Uint8Array,
    fin: boolean,
    lookup: (subscribeId: number) => UpstreamSubscription | undefined,
    onFrame: (bytes: number) => void,
  ): "more" | "done" | "ignore" | "oversized" | { readonly error: number } {
    this.#reader.push(bytes);
    if (fin) this.#reader.end();
    for (;;) {
      const step = this.#reader.next();
      switch (step.kind) {
        case "need_more":
          return "more";
        case "end":
          this.#group?.finish();
          this.#settled();
          return "done";
        case "error":
          this.#abort();
          return { error: step.error.code };
        case "message": {
          const msg = step.message;
          if (msg.type === "group") {
            const sub = lookup(msg.subscribe);
            const track = sub?.track;
            if (sub === undefined || track === undefined || track.closed || sub.refuses(msg.sequence)) return "ignore";
            // The frames this copy keeps start where the continuation needs them; a lite-06 stream
            // names its own first frame (the rest of a group), so only what it repeats is skipped.
            const keep = sub.firstFrame(msg.sequence);
            const from = msg.frameStart ?? 0;
            try {
              this.#group = track.createGroup(msg.sequence, { firstFrame: Math.max(keep, from) });
              this.#track = track;
              this.#skip = Math.max(0, keep - from);
            } catch {
              // A duplicate or a closed copy: nobody needs these bytes.
              return "ignore";
            }
            this.#owner = { sub, sequence: msg.sequence };
            this.#memory.created(track, this.#group);
          } else if (msg.type === "frame") {
            const group = this.#group;
            if (group === undefined) return "ignore";
            if (group.sealed) {
              // Evicted or aborted meanwhile: the rest is not wanted.
              this.#settled();
              return "ignore";
            }
            if (this.#skip > 0) {
              // Already held from the copy this one continues.
              this.#skip -= 1;
              continue;
            }
            this.#bytes += msg.payload.length;
            if (this.#bytes > this.#maxBytes) {
              // Aborting drops the frames already cached, so the limit bounds what the group holds.
              this.#abort();
              return "oversized";
            }
            onFrame(msg.payload.length);
            group.write(compact(msg.payload), msg.timestamp);
            if (this.#track !== undefined) this.#memory.changed(this.#track);
          }
          continue;
        }
        default: {
          const never: never = step;
          throw new Error(`unexpected read step ${JSON.stringify(never)}`);
        }
      }
    }
  }

  /** The peer reset the group stream. */
  reset(): void {
    this.#abort();
  }

  #abort(): void {
    this.#group?.abort();
    if (this.#track !== undefined) this.#memory.changed(this.#track);
    this.#settled();
  }

  /** The group is over, whole or not: its subscription is owed it no more. */
  #settled(): void {
    const owner = this.#owner;
    this.#owner = undefined;
    owner?.sub.groupSettled(owner.sequence);
  }
}

/**
 * The payload to cache: a frame that arrived inside a larger chunk is a view that keeps the whole
 * chunk alive, so one that uses less than half of its buffer is copied. What the budget counts is
 * then at least half of what is really held.
 */
function compact(payload: Uint8Array): Uint8Array {
  // A copy by construction: `slice` of a Node Buffer would be another view.
  return payload.byteLength * 2 < payload.buffer.byteLength ? new Uint8Array(payload) : payload;
}
