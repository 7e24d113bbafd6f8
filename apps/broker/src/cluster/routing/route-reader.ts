/**
 * A node's reader of the routes stream: XREAD BLOCK on a connection of its own from the node's
 * cursor, each batch of entries handed to `apply` in one synchronous run, then the cursor recorded
 * in the store (in the batch with the deliveries routing caused) and committed before the next
 * read, so after a crash the node goes on from a cursor that matches its sessions' queues.
 *
 * While a session it routed into is congested the reader reads no further (flow control: the
 * stream holds the backlog, and nothing acknowledged is dropped for a subscriber that is reading).
 *
 * A session moving here is adopted while the reader is held ({@link RouteReader.hold}): between
 * two batches, at a position the caller needs, so the session's replay and the reader's routing
 * meet at one entry.
 * @module
 */
import type { Redis } from "ioredis";
import { OriginsSeen, parseEntry, type RouteEntry } from "./route-entry.js";
import { compareIds } from "./stream-id.js";

/** Settings of a {@link RouteReader}. */
export interface RouteReaderOptions {
  /** The reader's own connection (it blocks). Closed by {@link RouteReader.close}. */
  readonly connection: Redis;
  readonly stream: string;
  /** The committed cursor to read after. */
  readonly start: string;
  /**
   * Routes fresh entries (resent duplicates are dropped before), synchronously. A promise
   * returned: the reader reads nothing more until it settles (a session routed into is congested:
   * flow control, as a publisher is held).
   */
  readonly apply: (entries: readonly RouteEntry[]) => Promise<void> | undefined;
  /** Records `cursor` and resolves once it is committed; rejects when the commit failed. */
  readonly commit: (cursor: string) => Promise<void>;
  /** A read or a commit failed (the reader retries after `retryMs`). */
  readonly onError: (err: unknown) => void;
  /** Entries per read. Default 256. */
  readonly count?: number;
  /** Default 100 ms. */
  readonly retryMs?: number;
}

interface Waiting {
  readonly target: string;
  readonly run: (position: string) => Promise<void>;
}

const STOPPED = Symbol("stopped");

const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** Reads and routes until closed. */
export class RouteReader {
  readonly #options: RouteReaderOptions;
  readonly #seen = new OriginsSeen();
  readonly #waiting: Waiting[] = [];
  #position: string;
  #gate: Promise<void> = Promise.resolve();
  #closed = false;
  // Resolved by close(): a read or a commit that would hang on a reconnecting connection is left.
  readonly #stopped: Promise<typeof STOPPED>;
  #stop: () => void = () => undefined;
  #loop: Promise<void> | undefined;

  constructor(options: RouteReaderOptions) {
    this.#options = options;
    this.#position = options.start;
    this.#stopped = new Promise((resolve) => {
      this.#stop = () => {
        resolve(STOPPED);
      };
    });
  }

  /** The id of the last entry routed here (in memory; committed shortly after). */
  get position(): string {
    return this.#position;
  }

  /** Starts reading. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /**
   * Runs `work` once the reader has routed at least up to `target`, with no entry routed while it
   * runs; `work` gets the position the reader stands at.
   */
  hold<T>(target: string, work: (position: string) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({
        target,
        run: async (position) => {
          await work(position).then(resolve, reject);
        },
      });
      this.#serve();
    });
  }

  /** Stops reading (an entry being routed finishes first) and closes the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stop();
    this.#options.connection.disconnect();
    await this.#loop;
    await Promise.race([this.#gate, this.#stopped]);
  }

  // Holds whose position is reached run one after another, before the next batch is routed.
  #serve(): void {
    for (let i = 0; i < this.#waiting.length; ) {
      const waiting = this.#waiting[i];
      if (waiting === undefined || compareIds(this.#position, waiting.target) < 0) {
        i += 1;
        continue;
      }
      this.#waiting.splice(i, 1);
      this.#gate = this.#gate.then(() => waiting.run(this.#position));
    }
  }

  async #run(): Promise<void> {
    const { connection, stream, count = 256, retryMs = 100 } = this.#options;
    // Read through a function: close() sets the flag while a read is out.
    const closed = (): boolean => this.#closed;
    while (!closed()) {
      let reply: unknown;
      try {
        reply = await Promise.race([connection.xreadBuffer("COUNT", count, "BLOCK", 2000, "STREAMS", stream, this.#position), this.#stopped]);
        if (reply === STOPPED) return;
      } catch (err) {
        if (closed()) return;
        this.#options.onError(err);
        await pause(retryMs);
        continue;
      }
      const batch = entriesOf(reply);
      if (batch.length === 0) continue;
      // A hold that began while the read was out runs to its end first.
      let gate: Promise<void>;
      do {
        gate = this.#gate;
        await gate;
      } while (gate !== this.#gate);
      const last = batch.at(-1);
      if (last === undefined) continue;
      const congested = this.#options.apply(batch.flatMap((e) => (e.entry !== undefined && this.#seen.fresh(e.entry.origin) ? [e.entry] : [])));
      this.#position = last.id;
      this.#serve();
      await this.#commit(retryMs);
      if (congested !== undefined) await Promise.race([congested, this.#stopped]);
    }
  }

  async #commit(retryMs: number): Promise<void> {
    for (;;) {
      try {
        await Promise.race([this.#options.commit(this.#position), this.#stopped]);
        return;
      } catch (err) {
        if (this.#closed) return;
        this.#options.onError(err);
        await pause(retryMs);
      }
    }
  }
}

/** The entries of an XREAD reply with Buffers (a foreign entry has `entry` undefined). */
function entriesOf(reply: unknown): { readonly id: string; readonly entry: RouteEntry | undefined }[] {
  if (!Array.isArray(reply)) return [];
  const out: { id: string; entry: RouteEntry | undefined }[] = [];
  for (const streamReply of reply as unknown[]) {
    const items = Array.isArray(streamReply) ? (streamReply as unknown[])[1] : undefined;
    if (!Array.isArray(items)) continue;
    for (const item of items as unknown[]) {
      const [id, fields] = Array.isArray(item) ? (item as unknown[]) : [];
      if (!Buffer.isBuffer(id) || !Array.isArray(fields)) continue;
      out.push({ id: id.toString(), entry: parseEntry(id, fields.filter((f): f is Buffer => Buffer.isBuffer(f))) });
    }
  }
  return out;
}

/** Entries of `stream` after `after` up to `through` (both ids), as XRANGE returns them. */
export async function readRange(redis: Redis, stream: string, after: string, through: string): Promise<RouteEntry[]> {
  const reply = await redis.xrangeBuffer(stream, `(${after}`, through);
  return entriesOf([[Buffer.from(stream), reply]]).flatMap((e) => (e.entry === undefined ? [] : [e.entry]));
}
