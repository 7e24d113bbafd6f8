import { type GroupReader, type ResumeTrack, type Track, TrackAbortedError, type TrackReader } from "@handoff/moq-resume";
import type { Subscribe, SubscribeUpdate } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import { RelayCode } from "../rules/index.js";

/** What a served subscription asks of its session. */
export interface ServeHost {
  /** A new group to send (the session schedules it). */
  startGroup(sub: ServedSubscription, group: GroupReader): void;
  /** The track ended cleanly and every group was handed out: FIN the subscribe stream once sent. */
  finished(sub: ServedSubscription): void;
  /** The track failed: reset the subscribe stream with `code`. */
  failed(sub: ServedSubscription, code: number): void;
  /** Group `sequence` cannot be delivered (evicted or aborted before it was handed out): tell the peer. */
  dropped(sub: ServedSubscription, sequence: number): void;
  /** `sub`'s track changed (a frame, a group, an update): its waiting groups may have data now. */
  kick(sub: ServedSubscription): void;
  /**
   * Runs `fn`, work of this host done from another connection's event (a publisher's frame wakes
   * every reader of its track), so that an error escaping it fails this host only and never the
   * connection whose event it was.
   */
  contain(where: string, fn: () => void): void;
}

/**
 * One downstream subscription: a reader of the shared track copy, handing each group it gets to
 * the session's scheduler. Arrival order, so a late lower group still goes out.
 */
export class ServedSubscription {
  /** The peer's subscribe id (goes into every GROUP header). */
  readonly id: number;
  /** Current priority (SUBSCRIBE_UPDATE may change it). */
  priority: number;
  /** Oldest group first when true, newest first otherwise (SUBSCRIBE_UPDATE may change it). */
  ordered: boolean;
  /** Groups handed out to the scheduler and not yet done. */
  openGroups = 0;
  readonly #reader: TrackReader<Track>;
  readonly #unwatch: () => void;
  #end: number | undefined;
  /** lite-06: the first frame wanted of the explicit start group (0: the whole group). */
  #startFrame: number;
  /** The explicit start group the frame start qualifies. */
  #startGroup: number | undefined;
  /** The explicit start, or else the first group handed out: where the owed range begins. */
  #from: number | undefined;
  #ended = false;
  #closed = false;
  readonly #release: () => void;
  readonly #host: ServeHost;

  constructor(
    /** The bidi stream the SUBSCRIBE came on. */
    readonly streamId: StreamId,
    msg: Subscribe,
    track: ResumeTrack,
    release: () => void,
    host: ServeHost,
  ) {
    this.#release = release;
    this.#host = host;
    this.id = msg.id;
    this.priority = msg.priority;
    this.ordered = msg.ordered;
    this.#end = msg.endGroup;
    this.#from = msg.startGroup;
    this.#startGroup = msg.startGroup;
    this.#startFrame = msg.startFrame ?? 0;
    this.#reader = track.subscribe({
      ...(msg.startGroup === undefined ? {} : { start: msg.startGroup }),
      ...(msg.endGroup === undefined ? {} : { end: msg.endGroup }),
    });
    // A wake-up runs inside whichever connection changed the track: contained to this host. The
    // pump closure is made once: a wake-up comes with every frame.
    const pump = (): void => {
      this.pump();
    };
    this.#unwatch = this.#reader.watch(() => {
      host.contain("fan-out", pump);
    });
  }

  /** True once every group owed has been handed out (FIN follows when they are sent). */
  get ended(): boolean {
    return this.#ended;
  }

  /** The first frame of group `sequence` to send: the asked frame of the start group, else 0. */
  frameStart(sequence: number): number {
    return sequence === this.#startGroup ? this.#startFrame : 0;
  }

  /** Hands every group available now to the host. */
  pump(): void {
    if (this.#closed || this.#ended) {
      if (!this.#closed) this.#host.kick(this);
      return;
    }
    for (;;) {
      const event = this.#reader.recvGroup();
      switch (event.kind) {
        case "group":
          this.#from ??= event.group.sequence;
          this.#host.startGroup(this, event.group);
          if (this.#endReached()) return;
          continue;
        case "lost":
          this.#host.dropped(this, event.sequence);
          if (this.#endReached()) return;
          continue;
        case "lagged":
        case "restarted":
          continue;
        case "pending":
          if (this.#endReached()) return;
          this.#host.kick(this);
          return;
        case "finished":
          this.#ended = true;
          this.#host.finished(this);
          this.#host.kick(this);
          return;
        case "error":
          // The upstream's own code where it gave one (a refusal, a failure); a publisher that
          // went away with no other route is "no route".
          this.#host.failed(this, event.error instanceof TrackAbortedError ? event.error.reason : RelayCode.NotFound);
          return;
        default: {
          const never: never = event;
          throw new Error(`unexpected group event ${JSON.stringify(never)}`);
        }
      }
    }
  }

  /** Applies a SUBSCRIBE_UPDATE. */
  update(msg: SubscribeUpdate): void {
    this.priority = msg.priority;
    this.ordered = msg.ordered;
    if (msg.startGroup !== undefined) {
      this.#reader.startAt(msg.startGroup);
      this.#from = msg.startGroup;
      this.#startGroup = msg.startGroup;
      this.#startFrame = msg.startFrame ?? 0;
    }
    const raised = msg.endGroup === undefined || (this.#end !== undefined && msg.endGroup > this.#end);
    this.#reader.endAt(msg.endGroup);
    this.#end = msg.endGroup;
    // An end raised before the FIN went out reopens the subscription (the host has not closed it).
    if (this.#ended && raised && !this.#closed) this.#ended = false;
    this.pump();
  }

  /**
   * Ends the subscription once every group of the owed range `[from, end]` was handed out or
   * reported lost. Arrival order: a lower group may still come after the end group, so reaching
   * the end group alone is not enough.
   */
  #endReached(): boolean {
    const end = this.#end;
    const from = this.#from;
    if (end === undefined || from === undefined) return false;
    if (from <= end && !this.#reader.hasSettled(from, end)) return false;
    this.#ended = true;
    this.#host.finished(this);
    this.#host.kick(this);
    return true;
  }

  /** Stops reading and drops this reader's share of the upstream copy. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatch();
    this.#reader.close();
    this.#release();
  }
}
