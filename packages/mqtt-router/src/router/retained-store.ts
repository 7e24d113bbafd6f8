/**
 * Retained messages, one per topic, in a trie over topic levels so that a new subscription's
 * filter walks only the matching branches instead of scanning every retained topic.
 * @module
 */
import { isExpired, messageSize, type Message } from "./message.js";

class Node {
  readonly children = new Map<string, Node>();
  message: Message | undefined;
  /** {@link messageSize} of `message`. */
  bytes = 0;
  constructor(readonly parent: Node | undefined, readonly level: string) {}
}

interface PageFrame {
  readonly node: Node;
  readonly depth: number;
  readonly onPath: boolean;
  readonly all: boolean;
}

/** Bounds on the retained store: topics holding a message, and the bytes those messages hold. */
export interface RetainedLimits {
  /** Most topics holding a retained message. */
  readonly maxCount: number;
  /** Most payload bytes all retained messages hold together. */
  readonly maxBytes: number;
}

/** Which bound a retained message would pass: the count (a new topic) or the bytes. */
export type RetainedRefusal = "count" | "bytes";

/** The retained message store. */
export class RetainedStore {
  readonly #root = new Node(undefined, "");
  #size = 0;
  #bytes = 0;

  /** How many topics hold a retained message. */
  get size(): number {
    return this.#size;
  }

  /** Bytes the retained messages hold ({@link messageSize}). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Which of `limits` storing `message` would pass, if any: the count only for a topic that holds
   * no message yet (a replacement never adds one), the bytes for any.
   */
  refusal(message: Message, limits: RetainedLimits): RetainedRefusal | undefined {
    const node = this.#find(message.topic);
    const held = node?.message === undefined ? undefined : node;
    if (held === undefined && this.#size >= limits.maxCount) return "count";
    if (this.#bytes - (held?.bytes ?? 0) + messageSize(message) > limits.maxBytes) return "bytes";
    return undefined;
  }

  /**
   * Sets the retained message of `message.topic`; an empty payload deletes it [MQTT-3.3.1-6/7].
   * Returns what the store now holds for the topic.
   */
  set(message: Message): Message | undefined {
    if (message.payload.byteLength === 0) {
      this.delete(message.topic);
      return undefined;
    }
    let node = this.#root;
    for (const level of message.topic.split("/")) {
      let child = node.children.get(level);
      if (child === undefined) {
        child = new Node(node, level);
        node.children.set(level, child);
      }
      node = child;
    }
    if (node.message === undefined) this.#size += 1;
    this.#bytes -= node.bytes;
    node.message = message;
    node.bytes = messageSize(message);
    this.#bytes += node.bytes;
    return message;
  }

  /** The retained message of `topic`, if any. */
  get(topic: string): Message | undefined {
    return this.#find(topic)?.message;
  }

  #find(topic: string): Node | undefined {
    let node: Node | undefined = this.#root;
    for (const level of topic.split("/")) {
      node = node.children.get(level);
      if (node === undefined) return undefined;
    }
    return node;
  }

  /** Deletes the retained message of `topic`; returns true if there was one. */
  delete(topic: string): boolean {
    const node = this.#find(topic);
    if (node?.message === undefined) return false;
    this.#clear(node);
    return true;
  }

  #clear(node: Node): void {
    node.message = undefined;
    this.#size -= 1;
    this.#bytes -= node.bytes;
    node.bytes = 0;
    this.#prune(node);
  }

  #prune(from: Node): void {
    let node = from;
    while (node.parent !== undefined && node.message === undefined && node.children.size === 0) {
      node.parent.children.delete(node.level);
      node = node.parent;
    }
  }

  /**
   * Up to `limit` retained messages whose topics match the plain filter `filter`, in topic order
   * (level by level, a topic before the topics below it), starting after the topic `after`.
   * Read-only: expired messages are skipped, not deleted. Topics starting with `$` are not
   * matched by a leading wildcard [MQTT-4.7.2-1]. Returns one more than `limit` when there is
   * more, so the caller knows a next page exists.
   */
  page(filter: string, after: string | undefined, limit: number, now: number): Message[] {
    const levels = filter.split("/");
    const cursor = after?.split("/");
    const out: Message[] = [];
    // Explicit stack, pushed in reverse order so pops come in topic order. `onPath`: the node's
    // topic is a prefix of the cursor (or the cursor itself), so only what follows it counts.
    const stack: PageFrame[] = [{ node: this.#root, depth: 0, onPath: cursor !== undefined, all: false }];
    for (let frame = stack.pop(); frame !== undefined && out.length <= limit; frame = stack.pop()) {
      const { node, depth, onPath, all } = frame;
      const here = all || depth === levels.length || (levels[depth] === "#" && depth > 0);
      const m = node.message;
      if (here && !onPath && m !== undefined && !isExpired(m, now)) out.push(m);
      let next: Node[];
      let childAll = all;
      if (all) next = [...node.children.values()];
      else if (depth === levels.length) next = [];
      else {
        const level = levels[depth] ?? "";
        if (level === "#" || level === "+") {
          childAll = level === "#";
          next = [...node.children.values()].filter((child) => !(depth === 0 && child.level.startsWith("$")));
        } else {
          const child = node.children.get(level);
          next = child === undefined ? [] : [child];
        }
      }
      next.sort((a, b) => (a.level < b.level ? -1 : a.level > b.level ? 1 : 0));
      const bound = onPath && cursor !== undefined && depth < cursor.length ? cursor[depth] : undefined;
      for (let i = next.length - 1; i >= 0; i--) {
        const child = next[i];
        if (child === undefined || (bound !== undefined && child.level < bound)) continue;
        stack.push({ node: child, depth: depth + 1, onPath: bound !== undefined && child.level === bound, all: childAll });
      }
    }
    return out;
  }

  /**
   * The retained messages whose topics match `filter`, skipping (and deleting) expired ones.
   * Topics starting with `$` are not matched by a leading wildcard [MQTT-4.7.2-1].
   */
  match(filter: string, now: number, onExpired?: (topic: string) => void): Message[] {
    const levels = filter.split("/");
    const out: Message[] = [];
    const expired: Node[] = [];
    const take = (node: Node): void => {
      const m = node.message;
      if (m === undefined) return;
      if (isExpired(m, now)) expired.push(node);
      else out.push(m);
    };
    // Explicit stacks, not recursion: the depth of the store and of the filter is the clients' to
    // choose. Children are pushed in reverse so they are visited in insertion order.
    const all = (from: Node): void => {
      const stack = [from];
      for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
        take(node);
        const children = [...node.children.values()];
        for (let i = children.length - 1; i >= 0; i--) {
          const child = children[i];
          if (child !== undefined) stack.push(child);
        }
      }
    };
    const nodes: Node[] = [this.#root];
    const depths: number[] = [0];
    for (;;) {
      const node = nodes.pop();
      const depth = depths.pop();
      if (node === undefined || depth === undefined) break;
      if (depth === levels.length) {
        take(node);
        continue;
      }
      const level = levels[depth] ?? "";
      const root = depth === 0;
      if (level === "#") {
        // "a/#" also matches "a" itself [MQTT-4.7.1-2]; at the root there is no parent topic.
        if (!root) take(node);
        for (const [name, child] of node.children) if (!(root && name.startsWith("$"))) all(child);
      } else if (level === "+") {
        const children = [...node.children].filter(([name]) => !(root && name.startsWith("$")));
        for (let i = children.length - 1; i >= 0; i--) {
          const entry = children[i];
          if (entry === undefined) continue;
          nodes.push(entry[1]);
          depths.push(depth + 1);
        }
      } else {
        const child = node.children.get(level);
        if (child !== undefined) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    }
    for (const node of expired) {
      if (node.message === undefined) continue;
      onExpired?.(node.message.topic);
      this.#clear(node);
    }
    return out;
  }
}
