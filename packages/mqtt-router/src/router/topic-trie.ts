/**
 * The subscription index: a trie over topic levels with `+` and `#` wildcards.
 *
 * Matching walks one path per topic level (plus the wildcard branches), so its cost grows with the
 * topic's depth and the number of *matching* subscriptions, not with the number of subscriptions.
 * Topics starting with `$` are not matched by a leading `+` or `#` [MQTT-4.7.2-1].
 * @module
 */

// Both maps are made on first use and dropped when they empty: a client's own filter adds nodes
// that are leaves or hold no entry themselves, and an empty Map costs about 200 bytes.
class TrieNode<V> {
  children: Map<string, TrieNode<V>> | undefined;
  /** Entries subscribed with a filter ending exactly here. */
  entries: Map<string, V> | undefined;
  constructor(readonly parent: TrieNode<V> | undefined, readonly level: string) {}
  get isEmpty(): boolean {
    return this.children === undefined && this.entries === undefined;
  }
}

/**
 * Maps topic filters to entries keyed by an id (e.g. a client id): one filter holds many entries,
 * one id holds at most one entry per filter.
 */
export class TopicTrie<V> {
  readonly #root = new TrieNode<V>(undefined, "");
  #size = 0;

  /** How many (filter, id) entries the trie holds. */
  get size(): number {
    return this.#size;
  }

  #node(filter: string, create: true): TrieNode<V>;
  #node(filter: string, create: false): TrieNode<V> | undefined;
  #node(filter: string, create: boolean): TrieNode<V> | undefined {
    let node = this.#root;
    for (const level of filter.split("/")) {
      let child = node.children?.get(level);
      if (child === undefined) {
        if (!create) return undefined;
        child = new TrieNode<V>(node, level);
        (node.children ??= new Map()).set(level, child);
      }
      node = child;
    }
    return node;
  }

  /** Adds or replaces the entry of `id` under `filter`; returns true if it replaced one. */
  set(filter: string, id: string, value: V): boolean {
    const node = this.#node(filter, true);
    const entries = (node.entries ??= new Map());
    const replaced = entries.has(id);
    entries.set(id, value);
    if (!replaced) this.#size += 1;
    return replaced;
  }

  /** The entry of `id` under `filter`, if any. */
  get(filter: string, id: string): V | undefined {
    return this.#node(filter, false)?.entries?.get(id);
  }

  /** Removes the entry of `id` under `filter`; returns true if there was one. */
  delete(filter: string, id: string): boolean {
    const node = this.#node(filter, false);
    const entries = node?.entries;
    if (node === undefined || entries?.delete(id) !== true) return false;
    this.#size -= 1;
    if (entries.size === 0) node.entries = undefined;
    // Prune empty branches so the trie's memory follows the live subscriptions.
    let current: TrieNode<V> = node;
    for (let parent = current.parent; parent !== undefined && current.isEmpty; parent = current.parent) {
      parent.children?.delete(current.level);
      if (parent.children?.size === 0) parent.children = undefined;
      current = parent;
    }
    return true;
  }

  /**
   * Calls `visit(value, id, filter)` for every entry whose filter matches `topic`. The filter is
   * passed so callers can tell overlapping subscriptions of one id apart.
   */
  match(topic: string, visit: (value: V, id: string) => void): void {
    const levels = topic.split("/");
    const dollar = topic.startsWith("$");
    // An explicit stack, not recursion: the depth is the client's to choose. Exact branches are
    // pushed last so they are walked first, as a recursive walk would.
    const nodes: TrieNode<V>[] = [this.#root];
    const depths: number[] = [0];
    for (;;) {
      const node = nodes.pop();
      const depth = depths.pop();
      if (node === undefined || depth === undefined) return;
      // `#` matches the parent level too ("a/#" matches "a") [MQTT-4.7.1-2].
      const children = node.children;
      const hash = children?.get("#");
      if (hash !== undefined && !(dollar && depth === 0)) hash.entries?.forEach(visit);
      if (depth === levels.length) {
        node.entries?.forEach(visit);
        continue;
      }
      if (children === undefined) continue;
      const plus = children.get("+");
      if (plus !== undefined && !(dollar && depth === 0)) {
        nodes.push(plus);
        depths.push(depth + 1);
      }
      const exact = children.get(levels[depth] ?? "");
      if (exact !== undefined) {
        nodes.push(exact);
        depths.push(depth + 1);
      }
    }
  }
}
