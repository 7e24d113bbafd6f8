/**
 * Retained messages, one per topic, in a trie over topic levels so that a new subscription's
 * filter walks only the matching branches instead of scanning every retained topic.
 * @module
 */
import { isExpired, type Message } from "./message.js";

class Node {
  readonly children = new Map<string, Node>();
  message: Message | undefined;
  constructor(readonly parent: Node | undefined, readonly level: string) {}
}

/** The retained message store. */
export class RetainedStore {
  readonly #root = new Node(undefined, "");
  #size = 0;

  /** How many topics hold a retained message. */
  get size(): number {
    return this.#size;
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
    node.message = message;
    return message;
  }

  /** The retained message of `topic`, if any. */
  get(topic: string): Message | undefined {
    let node: Node | undefined = this.#root;
    for (const level of topic.split("/")) {
      node = node.children.get(level);
      if (node === undefined) return undefined;
    }
    return node.message;
  }

  /** Deletes the retained message of `topic`; returns true if there was one. */
  delete(topic: string): boolean {
    let node: Node | undefined = this.#root;
    for (const level of topic.split("/")) {
      node = node.children.get(level);
      if (node === undefined) return false;
    }
    if (node.message === undefined) return false;
    node.message = undefined;
    this.#size -= 1;
    this.#prune(node);
    return true;
  }

  #prune(from: Node): void {
    let node = from;
    while (node.parent !== undefined && node.message === undefined && node.children.size === 0) {
      node.parent.children.delete(node.level);
      node = node.parent;
    }
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
    const all = (node: Node, root: boolean): void => {
      take(node);
      for (const [level, child] of node.children) if (!(root && level.startsWith("$"))) all(child, false);
    };
    const walk = (node: Node, depth: number): void => {
      if (depth === levels.length) {
        take(node);
        return;
      }
      const level = levels[depth] ?? "";
      const root = depth === 0;
      if (level === "#") {
        // "a/#" also matches "a" itself [MQTT-4.7.1-2]; at the root there is no parent topic.
        if (!root) take(node);
        for (const [name, child] of node.children) if (!(root && name.startsWith("$"))) all(child, false);
      } else if (level === "+") {
        for (const [name, child] of node.children) if (!(root && name.startsWith("$"))) walk(child, depth + 1);
      } else {
        const child = node.children.get(level);
        if (child !== undefined) walk(child, depth + 1);
      }
    };
    walk(this.#root, 0);
    for (const node of expired) {
      if (node.message !== undefined) onExpired?.(node.message.topic);
      node.message = undefined;
      this.#size -= 1;
      this.#prune(node);
    }
    return out;
  }
}
