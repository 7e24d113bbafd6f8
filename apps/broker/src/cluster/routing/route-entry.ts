/**
 * One entry of the routes stream: an accepted message (with the node chosen for each shared
 * group's copy) or a change of where a shared group has members, and who appended it — the node, that
 * node's incarnation (one per start, from a cluster-wide counter) and a counter within it. A batch
 * whose reply was lost is sent again, and XADD is the one command of a batch that is not
 * idempotent: readers drop an entry whose origin tag is not after the last one seen from that node.
 * @module
 */
import type { Message, ShareDecisions } from "@handoff/mqtt-router";
import { decodeMessage, encodeMessage } from "../../storage/redis-codec.js";

/** Who appended an entry, and its place in that node's order. */
export interface OriginTag {
  readonly node: string;
  readonly incarnation: number;
  readonly counter: number;
}

/** Node `node` has members of the shared group `group`/`filter` (`present`), or no longer has any. */
export interface ShareChange {
  readonly node: string;
  readonly group: string;
  readonly filter: string;
  readonly present: boolean;
}

/** The field of the shares hash (ClusterKeys.shares) for one node's membership of one group. */
export const shareField = (node: string, group: string, filter: string): string => JSON.stringify([node, group, filter]);

/** The memberships in the shares hash's fields (a malformed field is left out). */
export function parseShareFields(fields: readonly string[]): ShareChange[] {
  return fields.flatMap((field) => {
    const [node, group, filter, ...rest] = jsonArray(field) ?? [];
    return isString(node) && isString(group) && isString(filter) && rest.length === 0 ? [{ node, group, filter, present: true }] : [];
  });
}

/** An entry as read back: an accepted message, or a change of where a shared group has members. */
export type RouteEntry = MessageEntry | ShareChangeEntry;

/** An accepted message, with the node chosen for each shared group's copy (cluster-shares). */
export interface MessageEntry {
  readonly kind: "message";
  readonly id: string;
  readonly origin: OriginTag;
  readonly message: Message;
  readonly shares: ShareDecisions;
}

/** A node gained its first or lost its last member of a shared group. */
export interface ShareChangeEntry {
  readonly kind: "share";
  readonly id: string;
  readonly origin: OriginTag;
  readonly change: ShareChange;
}

const NO_DECISIONS: ShareDecisions = new Map();
const tag = (origin: OriginTag): string => `${String(origin.incarnation)} ${String(origin.counter)} ${origin.node}`;

/** The XADD fields of a message entry (after the stream key and id). */
export function entryFields(origin: OriginTag, message: Message, shares: ShareDecisions): (string | Buffer)[] {
  const fields: (string | Buffer)[] = ["o", tag(origin), "m", encodeMessage(message)];
  // [shareKey, node] pairs; absent when the message matches no shared group anywhere.
  if (shares.size > 0) fields.push("s", JSON.stringify([...shares]));
  return fields;
}

/** The XADD fields of a share change entry. */
export function shareChangeFields(origin: OriginTag, change: ShareChange): string[] {
  return ["o", tag(origin), "g", JSON.stringify([change.node, change.group, change.filter, change.present ? 1 : 0])];
}

const isString = (v: unknown): v is string => typeof v === "string";

// The JSON array in `text`, or undefined.
function jsonArray(text: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as unknown[]) : undefined;
  } catch {
    return undefined;
  }
}

// Decisions as entryFields wrote them; a malformed field decides nothing (no copy, never two).
function parseShares(text: string): ShareDecisions {
  const parsed = jsonArray(text);
  if (parsed === undefined) return NO_DECISIONS;
  const out = new Map<string, string>();
  for (const item of parsed) {
    if (!Array.isArray(item)) continue;
    const [key, node, ...rest] = item as unknown[];
    if (isString(key) && isString(node) && rest.length === 0) out.set(key, node);
  }
  return out;
}

function parseChange(text: string): ShareChange | undefined {
  const [node, group, filter, present, ...rest] = jsonArray(text) ?? [];
  if (rest.length > 0) return undefined;
  return isString(node) && isString(group) && isString(filter) && (present === 0 || present === 1) ? { node, group, filter, present: present === 1 } : undefined;
}

/** Parses an entry as XREAD/XRANGE return it with Buffers; undefined for a foreign one. */
export function parseEntry(id: Buffer, fields: readonly Buffer[]): RouteEntry | undefined {
  let origin: OriginTag | undefined;
  let message: Message | undefined;
  let shares = NO_DECISIONS;
  let change: ShareChange | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i]?.toString();
    const value = fields[i + 1];
    if (value === undefined) continue;
    if (name === "o") {
      const match = /^(\d+) (\d+) (.*)$/s.exec(value.toString());
      if (match?.[1] !== undefined && match[2] !== undefined && match[3] !== undefined) origin = { incarnation: Number(match[1]), counter: Number(match[2]), node: match[3] };
    } else if (name === "m") {
      message = decodeMessage(value);
    } else if (name === "s") {
      shares = parseShares(value.toString());
    } else if (name === "g") {
      change = parseChange(value.toString());
    }
  }
  if (origin === undefined) return undefined;
  if (message !== undefined) return { kind: "message", id: id.toString(), origin, message, shares };
  return change === undefined ? undefined : { kind: "share", id: id.toString(), origin, change };
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
