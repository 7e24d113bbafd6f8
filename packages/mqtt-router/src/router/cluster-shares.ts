/**
 * `$share` groups across the routers of a cluster: MQTT 5 gives each shared subscription group one
 * copy of a matching message [MQTT-4.8.2-3], but each node's router knows only its own members.
 * The node that accepts a message decides, for every group the message matches anywhere in the
 * cluster, which node delivers that group's copy (the nodes with members take turns); the
 * decisions travel with the message to every node, and each router obeys them through
 * `RouterOptions.sharedCopy`, then picks one of its own members as usual. Which nodes have members
 * of which group is told by the nodes themselves (`RouterOptions.onSharedGroup` on each).
 * @module
 */
import { TopicTrie } from "./topic-trie.js";

/** A message's decisions: the node that delivers each group's copy, by {@link shareKey}. */
export type ShareDecisions = ReadonlyMap<string, string>;

/** The key of one shared group in {@link ShareDecisions}. */
export const shareKey = (group: string, filter: string): string => `${group}\n${filter}`;

// What a message matching no group anywhere gets: one shared empty map, nothing made per message.
const NO_DECISIONS: ShareDecisions = new Map();

/** One group: the nodes with members, kept in name order (their turn order), and whose turn is next. */
interface GroupNodes {
  readonly group: string;
  readonly filter: string;
  readonly nodes: string[];
  turn: number;
}

/** Where a cluster's shared groups have members, as one node knows it. */
export class ClusterShares {
  // By filter and group name, for matching topics; by key, for walking.
  readonly #trie = new TopicTrie<GroupNodes>();
  readonly #byKey = new Map<string, GroupNodes>();

  /** Node `node` has members of `group` sharing `filter` (`present`), or no longer has any. */
  set(node: string, group: string, filter: string, present: boolean): void {
    const key = shareKey(group, filter);
    let entry = this.#byKey.get(key);
    if (present) {
      if (entry === undefined) {
        entry = { group, filter, nodes: [], turn: 0 };
        this.#byKey.set(key, entry);
        this.#trie.set(filter, group, entry);
      }
      // Sorted here, on the rare membership change, not per message.
      if (!entry.nodes.includes(node)) entry.nodes.splice(sortedIndex(entry.nodes, node), 0, node);
      return;
    }
    const at = entry?.nodes.indexOf(node) ?? -1;
    if (entry === undefined || at < 0) return;
    entry.nodes.splice(at, 1);
    if (entry.nodes.length > 0) return;
    this.#byKey.delete(key);
    this.#trie.delete(filter, group);
  }

  /** The nodes with members of `group` sharing `filter`, in their turn order. */
  nodesOf(group: string, filter: string): readonly string[] {
    return [...(this.#byKey.get(shareKey(group, filter))?.nodes ?? [])];
  }

  /** Every group `node` has members of (to forget a node that died). */
  groupsOf(node: string): { readonly group: string; readonly filter: string }[] {
    return [...this.#byKey.values()].filter((e) => e.nodes.includes(node)).map(({ group, filter }) => ({ group, filter }));
  }

  /**
   * Decides, for each group that `topic` matches, which node delivers its copy: the nodes with
   * members take turns, in name order.
   */
  decide(topic: string): ShareDecisions {
    if (this.#byKey.size === 0) return NO_DECISIONS;
    const decisions = new Map<string, string>();
    this.#trie.match(topic, (entry) => {
      const node = entry.nodes[entry.turn % entry.nodes.length];
      entry.turn = (entry.turn + 1) % entry.nodes.length;
      if (node !== undefined) decisions.set(shareKey(entry.group, entry.filter), node);
    });
    return decisions;
  }
}

// Where `node` goes in the name-ordered `nodes`.
function sortedIndex(nodes: readonly string[], node: string): number {
  const at = nodes.findIndex((n) => n > node);
  return at < 0 ? nodes.length : at;
}
