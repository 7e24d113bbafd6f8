import type { Group, Track } from "@handoff/moq-resume";
import { RelayCode } from "../rules/index.js";

/** Which budget made room. */
export type Budget = "track" | "relay";

/** Byte bounds of what the relay holds from its publishers. */
export interface ByteLimits {
  /** Payload bytes one upstream track copy may cache; past it its oldest groups are evicted. */
  readonly maxTrackBytes: number;
  /**
   * Bytes the whole relay may hold from its peers: cached group payloads plus frames and messages
   * still being received (partial, not decoded yet). Past it the relay's oldest cached groups are
   * evicted; when only partial data is left, the session holding most of it is closed.
   */
  readonly maxRelayBytes: number;
}

/** A session as the budget sees it: what it holds while receiving, and how to end it. */
export interface BudgetHolder {
  /** The session's id (logs). */
  readonly id: number;
  /** Closes the session: what it holds filled the process's budget. */
  close(code: number, reason: string): void;
}

/** What the budget reports (metrics, logs). */
export interface BudgetEvents {
  /** `groups` groups were evicted to keep `budget`. */
  evicted(budget: Budget, groups: number): void;
  /** `holder` was closed: it held `bytes` of partial data and nothing cached was left to evict. */
  overflowed(holder: BudgetHolder, bytes: number): void;
}

interface TrackRecord {
  readonly track: WeakRef<Track>;
  /** `track.bytes` when last looked at: what the budget counts for it. */
  bytes: number;
}

interface Arrival {
  readonly group: WeakRef<Group>;
  readonly record: TrackRecord;
}

/**
 * The relay's byte budgets over what its peers send it: per track copy and for the whole
 * process. Copies are held weakly (a copy nobody references any more is collected, and the next
 * sweep stops counting it), groups are evicted oldest first, and every eviction is reported:
 * readers are told the group is lost (the model wakes them), and `events` counts and logs it.
 */
export class ByteBudget {
  readonly #records = new Set<TrackRecord>();
  readonly #byTrack = new WeakMap<Track, TrackRecord>();
  /** Groups in creation order, across every copy: the relay budget evicts from the front. */
  #arrivals: Arrival[] = [];
  #head = 0;
  #cached = 0;
  #inbound = 0;
  readonly #holders = new Map<BudgetHolder, number>();
  /** Holders being closed, with what they held then: counted as gone already. */
  readonly #closing = new Map<BudgetHolder, number>();
  #doomed = 0;
  readonly #events: BudgetEvents;
  readonly #defer: (fn: () => void) => void;

  constructor(
    /** The byte bounds per track copy and for the whole process. */
    readonly limits: ByteLimits,
    events: BudgetEvents,
    /** Runs a close later in the turn (it may be asked for inside another session's event). */
    defer: (fn: () => void) => void,
  ) {
    this.#events = events;
    this.#defer = defer;
  }

  /** Cached payload bytes counted, over every copy. */
  get cachedBytes(): number {
    return this.#cached;
  }

  /** Partial inbound bytes counted, over every session. */
  get inboundBytes(): number {
    return this.#inbound;
  }

  /** A publisher's group was created in `track`: it joins the relay's eviction order. */
  created(track: Track, group: Group): void {
    const record = this.#record(track);
    this.#arrivals.push({ group: new WeakRef(group), record });
    this.#refresh(record, track);
  }

  /** Bytes were filed into (or dropped from) `track`: applies both budgets. */
  changed(track: Track): void {
    const record = this.#record(track);
    this.#refresh(record, track);
    if (track.bytes > this.limits.maxTrackBytes) {
      let evicted = 0;
      while (track.bytes > this.limits.maxTrackBytes && track.evictOldest() !== undefined) evicted += 1;
      this.#refresh(record, track);
      if (evicted > 0) this.#events.evicted("track", evicted);
    }
    this.#enforce();
  }

  /** `holder`'s partial inbound bytes changed by `delta` (decoders buffer frames and messages until whole). */
  inbound(holder: BudgetHolder, delta: number): void {
    if (delta === 0) return;
    const now = (this.#holders.get(holder) ?? 0) + delta;
    if (now > 0) this.#holders.set(holder, now);
    else this.#holders.delete(holder);
    this.#inbound += delta;
    if (delta > 0) this.#enforce();
  }

  /** `holder` is gone: its partial bytes are not held any more. */
  release(holder: BudgetHolder): void {
    const doomed = this.#closing.get(holder);
    if (doomed !== undefined) {
      this.#closing.delete(holder);
      this.#doomed -= doomed;
    }
    const held = this.#holders.get(holder);
    if (held === undefined) return;
    this.#holders.delete(holder);
    this.#inbound -= held;
  }

  /**
   * Recounts every copy (bytes dropped outside a write, copies collected) and compacts the
   * eviction order. Run now and then (the relay's 1 s sweep).
   */
  sweep(): void {
    let cached = 0;
    for (const record of this.#records) {
      const track = record.track.deref();
      if (track === undefined) {
        this.#records.delete(record);
        continue;
      }
      record.bytes = track.bytes;
      cached += record.bytes;
    }
    this.#cached = cached;
    this.#arrivals = this.#arrivals.slice(this.#head).filter((a) => {
      const group = a.group.deref();
      return group !== undefined && !group.lost;
    });
    this.#head = 0;
  }

  #record(track: Track): TrackRecord {
    let record = this.#byTrack.get(track);
    if (record === undefined) {
      record = { track: new WeakRef(track), bytes: 0 };
      this.#byTrack.set(track, record);
      this.#records.add(record);
    }
    return record;
  }

  #refresh(record: TrackRecord, track: Track): void {
    const bytes = track.bytes;
    this.#cached += bytes - record.bytes;
    record.bytes = bytes;
  }

  /** What counts against the relay budget: a session being closed for it is as good as gone. */
  #held(): number {
    return this.#cached + this.#inbound - this.#doomed;
  }

  /** Over the relay budget: the oldest cached groups go; with none left, the biggest partial holder. */
  #enforce(): void {
    const max = this.limits.maxRelayBytes;
    if (this.#held() <= max) return;
    let evicted = 0;
    while (this.#held() > max && this.#head < this.#arrivals.length) {
      const arrival = this.#arrivals[this.#head];
      this.#head += 1;
      const group = arrival?.group.deref();
      const track = arrival?.record.track.deref();
      if (arrival === undefined || group === undefined || track === undefined || group.lost) continue;
      // Creation order across copies is each copy's arrival order: this is the copy's oldest.
      if (track.evictOldest() !== undefined) evicted += 1;
      this.#refresh(arrival.record, track);
    }
    if (this.#head > 1024 && this.#head * 2 > this.#arrivals.length) {
      this.#arrivals = this.#arrivals.slice(this.#head);
      this.#head = 0;
    }
    if (evicted > 0) this.#events.evicted("relay", evicted);
    if (this.#held() > max) this.#closeBiggest();
  }

  #closeBiggest(): void {
    let biggest: BudgetHolder | undefined;
    let bytes = 0;
    for (const [holder, held] of this.#holders) {
      if (held > bytes && !this.#closing.has(holder)) {
        biggest = holder;
        bytes = held;
      }
    }
    if (biggest === undefined) return;
    const holder = biggest;
    this.#closing.set(holder, bytes);
    this.#doomed += bytes;
    this.#events.overflowed(holder, bytes);
    this.#defer(() => {
      holder.close(RelayCode.TooMany, "relay memory budget: too much data being received");
    });
  }
}
