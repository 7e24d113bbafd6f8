/**
 * One entry of the routes stream: the accepted message and who appended it — the node, that
 * node's incarnation (one per start, from a cluster-wide counter) and a counter within it. A batch
 * whose reply was lost is sent again, and XADD is the one command of a batch that is not
 * idempotent: readers drop an entry whose origin tag is not after the last one seen from that node.
 * @module
 */
import type { Message } from "@handoff/mqtt-router";
import { decodeMessage, encodeMessage } from "../../storage/redis-codec.js";

/** Who appended an entry, and its place in that node's order. */
export interface OriginTag {
  readonly node: string;
  readonly incarnation: number;
  readonly counter: number;
}

/** An entry as read back. */
export interface RouteEntry {
  readonly id: string;
  readonly origin: OriginTag;
  readonly message: Message;
}

/** The XADD fields of an entry (after the stream key and id). */
export function entryFields(origin: OriginTag, message: Message): (string | Buffer)[] {
  return ["o", `${String(origin.incarnation)} ${String(origin.counter)} ${origin.node}`, "m", encodeMessage(message)];
}

/** Parses an entry as XREAD/XRANGE return it with Buffers; undefined for a foreign one. */
export function parseEntry(id: Buffer, fields: readonly Buffer[]): RouteEntry | undefined {
  let origin: OriginTag | undefined;
  let message: Message | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i]?.toString();
    const value = fields[i + 1];
    if (value === undefined) continue;
    if (name === "o") {
      const match = /^(\d+) (\d+) (.*)$/s.exec(value.toString());
      if (match?.[1] !== undefined && match[2] !== undefined && match[3] !== undefined) origin = { incarnation: Number(match[1]), counter: Number(match[2]), node: match[3] };
    } else if (name === "m") {
      message = decodeMessage(value);
    }
  }
  return origin === undefined || message === undefined ? undefined : { id: id.toString(), origin, message };
}

/** The last origin tag seen per node: an entry not after it is a resent duplicate. */
export class OriginsSeen {
  readonly #last = new Map<string, { incarnation: number; counter: number }>();

  /** True (and remembered) when `tag` is after every earlier tag of its node. */
  fresh(tag: OriginTag): boolean {
    const last = this.#last.get(tag.node);
    if (last !== undefined && (tag.incarnation < last.incarnation || (tag.incarnation === last.incarnation && tag.counter <= last.counter))) return false;
    this.#last.set(tag.node, { incarnation: tag.incarnation, counter: tag.counter });
    return true;
  }
}
