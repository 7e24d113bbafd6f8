import { Track, type Boundary, type Group } from "@handoff/moq-resume";
import { LiteStreamReader, type LiteVersion } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import { NO_MEMORY, type SessionMemory } from "./memory.js";
import type { StreamIo } from "./stream-io.js";
import { SubscriptionEnd } from "./subscription-end.js";

/**
 * A subscription the relay holds on the peer (the peer publishes): the SUBSCRIBE stream we
 * opened and the track copy its groups fill.
 */
export class UpstreamSubscription {
  /** The copy shared with every downstream reader. */
  readonly track: Track;
  readonly #reader: LiteStreamReader;
  readonly #end = new SubscriptionEnd();
  #cancelled = false;
  /** Told once the copy ended for good (finished, aborted or dropped): the owner forgets it. */
  onDone: () => void = noop;
  /**
   * Where this copy continues a group another copy left open: the peer sends that group from its
   * first frame, and the frames below `frame` are already held, so they are skipped.
   */
  continuation: Boundary | undefined;

  constructor(
    /** Our subscribe id (the peer puts it in each GROUP header). */
    readonly id: number,
    /** The SUBSCRIBE stream. */
    readonly streamId: StreamId,
    version: LiteVersion,
    name: string,
    priority: number,
    maxGroups: number,
  ) {
    this.track = new Track(name, { maxGroups, info: { priority } });
    this.#reader = new LiteStreamReader({ role: "opened", kind: "subscribe", version });
  }

  /** Bytes of the SUBSCRIBE stream's replies received but not decoded yet. */
  get buffered(): number {
    return this.#reader.buffered;
  }

  /** True once the last reader left and we ended the subscription. */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /**
   * Responses on the SUBSCRIBE stream. Returns `over` when the stream is over (FIN: the
   * publisher ended the subscription; malformed: the track is aborted and the caller resets the
   * stream with the code). After a FIN the copy may still be `owing` groups below the declared
   * SUBSCRIBE_END whose streams are still arriving: it finishes once they are in (or reported).
   */
  receive(bytes: Uint8Array, fin: boolean): { readonly over: boolean; readonly errorCode?: number; readonly owing?: boolean } {
    this.#reader.push(bytes);
    if (fin) this.#reader.end();
    const { messages, status } = this.#reader.drain();
    // Groups come on their own streams; the range replies say which of them are owed.
    for (const msg of messages) {
      if (msg.type === "subscribe_start") this.#end.started(msg.group);
      else if (msg.type === "subscribe_end") this.#end.declared(msg.group);
      else if (msg.type === "subscribe_drop") this.#end.dropped(msg.start, msg.end);
    }
    if (status.kind === "error") {
      this.track.abort(status.error.code);
      return { over: true, errorCode: status.error.code };
    }
    if (status.kind === "end") {
      this.#end.finished();
      if (this.#finishIfComplete()) return { over: true };
      return { over: true, owing: true };
    }
    return { over: false };
  }

  /** True when group `sequence` is past the end the publisher declared: it is not taken. */
  refuses(sequence: number): boolean {
    return this.#end.refuses(sequence);
  }

  /** Group `sequence` of this copy completed or failed. */
  groupSettled(sequence: number): void {
    this.#end.settled(sequence);
    this.#finishIfComplete();
  }

  /**
   * Files a datagram as group `sequence` of one frame (arriving whole, so finished at once);
   * undefined when the copy does not take it (ended, past the declared end, already held,
   * larger than `maxBytes`).
   */
  datagram(sequence: number, payload: Uint8Array, timestamp: number, maxBytes: number, memory: SessionMemory): Group | undefined {
    const track = this.track;
    if (track.closed || this.refuses(sequence) || payload.length > maxBytes) return undefined;
    let group: Group;
    try {
      // A copy: the payload is a view into the whole DATAGRAM frame's message.
      group = track.createDatagramGroup(sequence, new Uint8Array(payload), timestamp);
    } catch {
      // Held already (its stream came first, or a repeat): datagrams are deduplicated by sequence.
      return undefined;
    }
    memory.created(track, group);
    memory.changed(track);
    this.groupSettled(sequence);
    return group;
  }

  /** Time passes: a copy still owing groups long after the FIN finishes without them. */
  tick(nowMs: number): void {
    if (this.#end.fin && !this.track.closed && this.#end.overdue(nowMs)) this.#finish();
  }

  /** The peer reset the subscription (refused it, or failed). */
  reset(code: number): void {
    this.track.abort(code);
    this.onDone();
  }

  /** True once the publisher FINed the subscription (it may still owe groups). */
  get ended(): boolean {
    return this.#end.fin;
  }

  /** The last downstream reader left: FIN our side, which ends the subscription for the peer. */
  cancel(io: StreamIo): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    // Our side was FINed already when the publisher ended it first.
    if (!this.#end.fin) io.send(this.streamId, new Uint8Array(0), true);
    this.#finish();
  }

  #finishIfComplete(): boolean {
    if (!this.#end.complete) return false;
    this.#finish();
    return true;
  }

  #finish(): void {
    this.track.finish();
    this.onDone();
  }

  /** The first frame of group `sequence` this copy must keep (frames below it are skipped). */
  firstFrame(sequence: number): number {
    return this.continuation?.group === sequence ? this.continuation.frame : 0;
  }

  /** The session is gone: readers drain what they have and then see the track dropped. */
  drop(): void {
    this.track.drop();
  }
}

function noop(): void {
  // Set by the owner.
}

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

  constructor(
    version: LiteVersion,
    /** Payload bytes the group may carry before it is aborted as too large. */
    private readonly maxBytes: number = Number.POSITIVE_INFINITY,
    /** The relay's byte budget, told of every group and every byte filed. */
    private readonly memory: SessionMemory = NO_MEMORY,
  ) {
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
            this.memory.created(track, this.#group);
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
            if (this.#bytes > this.maxBytes) {
              // Aborting drops the frames already cached, so the limit bounds what the group holds.
              this.#abort();
              return "oversized";
            }
            onFrame(msg.payload.length);
            group.write(compact(msg.payload), msg.timestamp);
            if (this.#track !== undefined) this.memory.changed(this.#track);
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
    if (this.#track !== undefined) this.memory.changed(this.#track);
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
