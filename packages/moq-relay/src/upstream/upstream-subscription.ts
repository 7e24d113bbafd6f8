import { Track, type Boundary, type Group } from "@handoff/moq-resume";
import { LiteStreamReader, type LiteVersion } from "@handoff/moq-resume/lite";
import type { Clock } from "@handoff/seqlog";
import type { StreamId } from "@handoff/qmux";
import type { SessionMemory, StreamIo } from "../context/index.js";
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
    clock: Clock,
  ) {
    this.track = new Track(name, { clock, maxGroups, info: { priority } });
    this.#reader = new LiteStreamReader({ role: "opened", kind: "subscribe", version });
  }

  /** Bytes of the SUBSCRIBE stream's replies received but not decoded yet. */
  get buffered(): number {
    return this.#reader.buffered;
  }

  /** The first group the publisher said it sends (lite-05+ SUBSCRIBE_START), once it said so. */
  get startedAt(): number | undefined {
    return this.#end.start;
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
