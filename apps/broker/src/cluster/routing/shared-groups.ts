/**
 * This node's part in the cluster's `$share` groups: one copy per group cluster-wide
 * (@handoff/mqtt-router's ClusterShares). For a message accepted here, the node that delivers
 * each matching group's copy is decided here, once, and appended with the message; the router
 * here takes the copies decided for this node at once. A message from another node is routed with
 * the decisions it carries. Where groups have members is told through the routes stream (and the
 * shares hash a starting node reads): this node's own membership from its router's
 * `onSharedGroup`, a dead node's dropped by the node that finds it dead.
 *
 * A copy is decided for a node that had members as far as the deciding node knew. One decided for
 * a node that died is delivered by the survivor that adopted its sessions first, its heir (once
 * cluster-wide, wills-adoption.ts electHeir; other survivors' adopted members get only the copies
 * decided for their own node): the copies the dead node
 * never routed go into the adopted members' replay, later ones are routed there until the others
 * have read that it is gone. One decided for a node whose last member left meanwhile reaches no
 * member (counted, `cluster_share_copies_unrouted_total` where it is seen). A group's first
 * member on a node gets copies once the other nodes have read that it joined (milliseconds).
 * @module
 */
import { ClusterShares, shareKey, type Message, type ShareDecisions } from "@handoff/mqtt-router";
import type { MessageEntry, ShareChange } from "./route-entry.js";

/** The shared-group routing of one node. */
export class SharedGroupsRouting {
  readonly #self: string;
  readonly #record: (change: ShareChange) => void;
  readonly #shares = new ClusterShares();
  /** The groups with members here, by share key. */
  readonly #local = new Map<string, { readonly group: string; readonly filter: string }>();
  readonly #decided = new WeakMap<Message, ShareDecisions>();
  /** Dead nodes whose copies this node takes (it adopted their sessions), until they come back. */
  readonly #adopted = new Set<string>();
  /** While another node's message is routed: its decisions, and those for this node the router took. */
  #remote: { readonly shares: ShareDecisions; readonly taken: Set<string> } | undefined;
  /** `record` writes a membership change to the store (hash and stream, in its next batch). */
  constructor(self: string, record: (change: ShareChange) => void) {
    this.#self = self;
    this.#record = record;
  }

  /** `RouterOptions.sharedCopy`: whether this node delivers the group's copy of `message`. */
  sharedCopy(message: Message, group: string, filter: string): boolean {
    const key = shareKey(group, filter);
    const remote = this.#remote;
    if (remote === undefined) return this.#mine(this.decisionsFor(message).get(key));
    if (!this.#mine(remote.shares.get(key))) return false;
    remote.taken.add(key);
    return true;
  }

  #mine(node: string | undefined): boolean {
    return node !== undefined && (node === this.#self || this.#adopted.has(node));
  }

  /**
   * This node adopts sessions of the dead `node`: the copies other nodes still decide for it
   * (until they read that it is gone) are delivered here, to the adopted members, until `node`
   * reports a member again (it restarted).
   */
  takeCopiesOf(node: string): void {
    if (node !== this.#self) this.#adopted.add(node);
  }

  /** The decisions for a message accepted here: made on the first ask, the same after. */
  decisionsFor(message: Message): ShareDecisions {
    let decisions = this.#decided.get(message);
    if (decisions === undefined) {
      decisions = this.#shares.decide(message.topic);
      // Remembered only when there is something to decide again the same way.
      if (decisions.size > 0) this.#decided.set(message, decisions);
    }
    return decisions;
  }

  /**
   * Routes another node's message (`route` plans and executes it here) under the decisions it
   * carries; returns what `route` did and how many copies decided for this node found no member
   * of their group here.
   */
  routeRemote<T>(entry: MessageEntry, route: (message: Message) => T): { readonly outcome: T; readonly unrouted: number } {
    const remote = { shares: entry.shares, taken: new Set<string>() };
    this.#remote = remote;
    let outcome: T;
    try {
      outcome = route(entry.message);
    } finally {
      this.#remote = undefined;
    }
    let unrouted = 0;
    for (const [key, node] of entry.shares) if (this.#mine(node) && !remote.taken.has(key)) unrouted += 1;
    return { outcome, unrouted };
  }

  /** `RouterOptions.onSharedGroup`: known here at once, told to the other nodes through the store. */
  localChanged(group: string, filter: string, present: boolean): void {
    const key = shareKey(group, filter);
    if (present) this.#local.set(key, { group, filter });
    else this.#local.delete(key);
    this.#shares.set(this.#self, group, filter, present);
    this.#record({ node: this.#self, group, filter, present });
  }

  /** A change read from the routes stream; this node's own membership is its router's. */
  applied(change: ShareChange): void {
    if (change.node === this.#self) return;
    if (change.present) this.#adopted.delete(change.node);
    this.#shares.set(change.node, change.group, change.filter, change.present);
  }

  /**
   * At start, before the stream is followed: the memberships the shares hash holds. This node's
   * own are its router's; one the hash still holds that the router has not (a group its sessions
   * left while it was down) is withdrawn.
   */
  load(memberships: readonly ShareChange[]): void {
    for (const m of memberships) {
      if (m.node !== this.#self) this.#shares.set(m.node, m.group, m.filter, true);
      else if (!this.#local.has(shareKey(m.group, m.filter))) this.#record({ ...m, present: false });
    }
  }

  /** `node` was found dead: its memberships go (its sessions' new node reports its own). */
  nodeDead(node: string): void {
    for (const { group, filter } of this.#shares.groupsOf(node)) {
      this.#shares.set(node, group, filter, false);
      this.#record({ node, group, filter, present: false });
    }
  }
}
