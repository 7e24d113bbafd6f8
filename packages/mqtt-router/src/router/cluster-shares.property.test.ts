// Model-based: three routers sharing `$share` groups through ClusterShares, as a cluster's nodes
// do (memberships told at once here; the network's lag is the broker's e2e tests' part). Over random
// sequences of members joining and leaving groups on any node and messages published on any node,
// each message reaches every group that has a member anywhere exactly once, and no other group.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClusterShares, shareKey, type ShareDecisions } from "./cluster-shares.js";
import type { Message } from "./message.js";
import type { Router } from "./router.js";
import { message, newRouter, online, sub, type RecordingSink } from "./router.test-helpers.js";

const NODES = ["n0", "n1", "n2"] as const;
const GROUPS = [
  { name: "g0", filter: "t/#" },
  { name: "g1", filter: "t/a" },
] as const;
const TOPICS = ["t/a", "t/b"] as const;
const CLIENTS = 6; // client c lives on node c % 3

type Command = { readonly kind: "join" | "leave"; readonly client: number; readonly group: number } | { readonly kind: "publish"; readonly node: number; readonly topic: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constantFrom("join" as const, "leave" as const), client: fc.nat(CLIENTS - 1), group: fc.nat(GROUPS.length - 1) }),
  fc.record({ kind: fc.constant("publish" as const), node: fc.nat(NODES.length - 1), topic: fc.nat(TOPICS.length - 1) }),
);

/** One node: its router, and the decisions of the message it routes now (its own or another node's). */
interface Node {
  readonly name: string;
  readonly router: Router;
  readonly shares: ClusterShares;
  current: { readonly message: Message; readonly decisions: ShareDecisions } | undefined;
}

function cluster(): { nodes: Node[]; sinks: RecordingSink[]; generations: number[] } {
  const nodes: Node[] = [];
  for (const name of NODES) {
    const shares = new ClusterShares();
    const node: Node = {
      name,
      shares,
      current: undefined,
      router: newRouter({
        // Memberships reach every node's directory at once.
        onSharedGroup: (group, filter, present) => {
          for (const other of nodes) other.shares.set(name, group, filter, present);
        },
        sharedCopy: (m, group, filter) => node.current?.message === m && node.current.decisions.get(shareKey(group, filter)) === name,
      }).router,
    };
    nodes.push(node);
  }
  const sinks: RecordingSink[] = [];
  const generations: number[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    const node = nodes[c % NODES.length];
    if (node === undefined) throw new Error("no node");
    const o = online(node.router, `c${String(c)}`);
    sinks.push(o.sink);
    generations.push(o.generation);
  }
  return { nodes, sinks, generations };
}

describe("$share groups across three routers (model-based)", () => {
  it("each message reaches every group with a member anywhere exactly once, and no other", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 60 }), (commands) => {
        const { nodes, sinks, generations } = cluster();
        const members = GROUPS.map(() => new Set<number>()); // the model
        let n = 0;
        for (const cmd of commands) {
          if (cmd.kind !== "publish") {
            const node = nodes[cmd.client % NODES.length];
            const group = GROUPS[cmd.group];
            if (node === undefined || group === undefined) continue;
            const id = `c${String(cmd.client)}`;
            const filter = `$share/${group.name}/${group.filter}`;
            if (cmd.kind === "join") {
              node.router.subscribe(id, generations[cmd.client] ?? 0, [sub(filter, 0)], cmd.group + 1);
              members[cmd.group]?.add(cmd.client);
            } else {
              node.router.unsubscribe(id, generations[cmd.client] ?? 0, [filter]);
              members[cmd.group]?.delete(cmd.client);
            }
            continue;
          }
          const origin = nodes[cmd.node];
          const topic = TOPICS[cmd.topic] ?? "t/a";
          if (origin === undefined) continue;
          const payload = `m${String(n++)}`;
          const m = message(topic, payload, 0);
          // The accepting node decides; every node routes the message under those decisions.
          const decisions = origin.shares.decide(topic);
          for (const node of nodes) {
            node.current = { message: m, decisions };
            node.router.publish(m);
            node.current = undefined;
          }
          GROUPS.forEach((group, g) => {
            const copies = sinks.flatMap((s, c) => s.sent.filter((p) => new TextDecoder().decode(p.payload) === payload && p.properties.subscriptionIdentifiers?.includes(g + 1) === true).map(() => c));
            const matches = group.filter === "t/#" || topic === group.filter;
            const owed = matches && (members[g]?.size ?? 0) > 0 ? 1 : 0;
            expect(copies.length, `${payload} on ${topic} to ${group.name}`).toBe(owed);
            for (const c of copies) expect(members[g]?.has(c)).toBe(true);
          });
        }
      }),
      { numRuns: 200 },
    );
  });
});
