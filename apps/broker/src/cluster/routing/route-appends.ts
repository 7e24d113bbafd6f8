/**
 * What one node appends to the routes stream: the XADD of each message with its origin tag, and
 * the messages its own reader has not passed yet (a session moving here is owed those: they were
 * routed here before it was).
 * @module
 */
import type { Message, ShareDecisions } from "@handoff/mqtt-router";
import type { Redis } from "ioredis";
import type { ClusterKeys } from "../keys.js";
import { entryFields, shareChangeFields, shareField, type OriginTag, type ShareChange } from "./route-entry.js";
import { appendedBefore } from "./handoff-rules.js";
import { readRange } from "./route-reader.js";
import { compareIds, STREAM_START } from "./stream-id.js";

/** An append of this node its reader has not passed yet: a session moving here is owed it. */
export interface UnreadAppend {
  readonly tag: OriginTag;
  readonly message: Message;
  readonly shares: ShareDecisions;
  /** Its stream id, once the batch that appended it has committed. */
  id?: string;
}

/**
 * One node's appends during one incarnation, and those of its earlier runs its reader has not
 * passed (they count as unread too: a crash lost nothing of them but the memory that they were
 * routed only where they were accepted).
 */
export class RouteAppends {
  readonly #node: string;
  readonly #incarnation: number;
  #counter = 0;
  #unread: UnreadAppend[] = [];
  /** Entries of #unread before this index are passed. */
  #head = 0;
  /** The unread append of each XADD command this node made, found again in O(1) when its batch's outcome is known. */
  readonly #appends = new WeakMap<readonly (string | Buffer)[], UnreadAppend>();

  constructor(node: string, incarnation: number, earlier: readonly UnreadAppend[] = []) {
    this.#node = node;
    this.#incarnation = incarnation;
    this.#unread = [...earlier];
  }

  /** The XADD of `message` to `stream`; the message counts as unread until {@link RouteAppends.passed}. */
  command(stream: string, message: Message, shares: ShareDecisions): (string | Buffer)[] {
    this.#counter += 1;
    const tag = this.#tag();
    const append: UnreadAppend = { tag, message, shares };
    this.#unread.push(append);
    const command = ["XADD", stream, "*", ...entryFields(tag, message, shares)];
    this.#appends.set(command, append);
    return command;
  }

  /**
   * A change of where a shared group has members: its write to the shares hash (what a starting
   * node reads) and its XADD to the routes stream (what the running nodes follow).
   */
  shareCommands(keys: ClusterKeys, change: ShareChange): string[][] {
    this.#counter += 1;
    const field = shareField(change.node, change.group, change.filter);
    return [change.present ? ["HSET", keys.shares, field, "1"] : ["HDEL", keys.shares, field], ["XADD", keys.routes, "*", ...shareChangeFields(this.#tag(), change)]];
  }

  #tag(): OriginTag {
    return { node: this.#node, incarnation: this.#incarnation, counter: this.#counter };
  }

  /** The message append `command` (from {@link RouteAppends.command}) was committed as entry `id`. */
  committed(command: readonly (string | Buffer)[], id: string): void {
    const append = this.#appends.get(command);
    if (append !== undefined) append.id = id;
  }

  /**
   * The message append `command` will never be committed: its publisher's writes were refused
   * (another node claimed it) or dropped. It is nobody's unread message; replayed, it would
   * reach sessions as a message never acknowledged.
   */
  dropped(command: readonly (string | Buffer)[]): void {
    const append = this.#appends.get(command);
    // Rare (a publisher fenced out or given up): a search of the unread part is fine here.
    const at = append === undefined ? -1 : this.#unread.indexOf(append, this.#head);
    if (at >= 0) this.#unread.splice(at, 1);
  }

  /** This node's reader passed its own entry (`incarnation`, `counter`): it and earlier ones (of earlier runs too) are read. */
  passed(incarnation: number, counter: number): void {
    // Amortised O(1) per entry: the reader passes entries in order, often thousands behind the
    // appends under load, so the array is cut only once most of it is passed.
    const unread = this.#unread;
    const at = { node: this.#node, incarnation, counter };
    while (this.#head < unread.length && appendedBefore(unread[this.#head]?.tag ?? at, at)) this.#head += 1;
    this.#compact();
  }

  // Amortised O(1) per entry: the array is cut only once most of it is passed.
  #compact(): void {
    const unread = this.#unread;
    if (this.#head === unread.length) {
      this.#unread = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > unread.length) {
      this.#unread = unread.slice(this.#head);
      this.#head = 0;
    }
  }

  /**
   * This node's reader stands at `id`: the appends committed at or before it are passed, read or
   * not (entries the stream was trimmed past before the reader came are never read).
   */
  passedThrough(id: string): void {
    const unread = this.#unread;
    while (this.#head < unread.length) {
      const appended = unread[this.#head]?.id;
      if (appended === undefined || compareIds(appended, id) > 0) break;
      this.#head += 1;
    }
    this.#compact();
  }

  /** The messages appended that the reader has not passed yet, in order, with their origin tags, shared-group decisions and ids where known. */
  unread(): readonly UnreadAppend[] {
    return this.#unread.slice(this.#head);
  }
}

/**
 * This start's incarnation, the node's committed routes cursor and its own message appends of
 * earlier runs after that cursor (unread: see {@link RouteAppends}): a node new to the cluster
 * starts at the stream's tip (it has no sessions yet) and records that at once, so trimming keeps
 * what it has still to read.
 */
export async function openRoute(redis: Redis, keys: ClusterKeys, nodeId: string): Promise<{ readonly incarnation: number; readonly cursor: string; readonly earlier: readonly UnreadAppend[] }> {
  const incarnation = await redis.incr(keys.incarnations);
  const stored = await redis.hget(keys.cursors, nodeId);
  if (stored !== null) {
    const after = await readRange(redis, keys.routes, stored, "+");
    const earlier = after.flatMap((e) => (e.kind === "message" && e.origin.node === nodeId ? [{ tag: e.origin, message: e.message, shares: e.shares, id: e.id }] : []));
    return { incarnation, cursor: stored, earlier };
  }
  const last = await redis.xrevrange(keys.routes, "+", "-", "COUNT", 1);
  const cursor = last[0]?.[0] ?? STREAM_START;
  await redis.hset(keys.cursors, nodeId, cursor);
  return { incarnation, cursor, earlier: [] };
}
