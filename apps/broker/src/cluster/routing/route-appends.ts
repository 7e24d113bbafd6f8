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
import { STREAM_START } from "./stream-id.js";

/** One node's appends during one incarnation. */
export class RouteAppends {
  readonly #node: string;
  readonly #incarnation: number;
  #counter = 0;
  #unread: { readonly tag: OriginTag; readonly message: Message; readonly shares: ShareDecisions }[] = [];
  /** Entries of #unread before this index are passed. */
  #head = 0;

  constructor(node: string, incarnation: number) {
    this.#node = node;
    this.#incarnation = incarnation;
  }

  /** The XADD of `message` to `stream`; the message counts as unread until {@link RouteAppends.passed}. */
  command(stream: string, message: Message, shares: ShareDecisions): (string | Buffer)[] {
    this.#counter += 1;
    const tag = this.#tag();
    this.#unread.push({ tag, message, shares });
    return ["XADD", stream, "*", ...entryFields(tag, message, shares)];
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

  /** This node's reader passed its own entry (`incarnation`, `counter`): it and earlier ones are read. */
  passed(incarnation: number, counter: number): void {
    if (incarnation !== this.#incarnation) return;
    // Amortised O(1) per entry: the reader passes entries in order, often thousands behind the
    // appends under load, so the array is cut only once most of it is passed.
    const unread = this.#unread;
    while (this.#head < unread.length && (unread[this.#head]?.tag.counter ?? Infinity) <= counter) this.#head += 1;
    if (this.#head === unread.length) {
      this.#unread = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > unread.length) {
      this.#unread = unread.slice(this.#head);
      this.#head = 0;
    }
  }

  /** The messages appended that the reader has not passed yet, in order, with their origin tags and shared-group decisions. */
  unread(): { readonly tag: OriginTag; readonly message: Message; readonly shares: ShareDecisions }[] {
    return this.#unread.slice(this.#head);
  }
}

/**
 * This start's incarnation and the node's committed routes cursor: a node new to the cluster
 * starts at the stream's tip (it has no sessions yet) and records that at once, so trimming keeps
 * what it has still to read.
 */
export async function openRoute(redis: Redis, keys: ClusterKeys, nodeId: string): Promise<{ readonly incarnation: number; readonly cursor: string }> {
  const incarnation = await redis.incr(keys.incarnations);
  const stored = await redis.hget(keys.cursors, nodeId);
  if (stored !== null) return { incarnation, cursor: stored };
  const last = await redis.xrevrange(keys.routes, "+", "-", "COUNT", 1);
  const cursor = last[0]?.[0] ?? STREAM_START;
  await redis.hset(keys.cursors, nodeId, cursor);
  return { incarnation, cursor };
}
