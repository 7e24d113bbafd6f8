// Test-only: a model of the cross-node routing protocol, node steps interleaved at random by
// handoff.model.property.test.ts. Redis is a few maps applied atomically per batch; each node has
// what a broker process keeps in memory (its router's sessions, its reader's position, its unread
// appends, its recorded writes) and loses it when it crashes. The decisions are the product's own
// (handoff-rules.ts: the route base a claim records, where the replay starts, which entries a
// moving session is owed, below which id the stream may be trimmed); the mechanics around them
// follow route-reader.ts, handoff.ts, take-session.ts, ownership.ts and redis-store.ts: a batch's
// write groups fenced by the session's token, the cursor committed with the deliveries its
// reading caused, a claim that reads the session and records its route base in one script.
//
// Every session subscribes to every message at creation; publishers are per node and never move.
// The history is checked by checkHistory: every acknowledged message reaches every session
// incarnation that existed when it was appended, once, in per-publisher order.
import { appendedBefore, owedEntries, replayTarget, routeBaseOnClaim, trimFloor, type RouteBase } from "./handoff-rules.js";
import { OriginsSeen, type OriginTag } from "./route-entry.js";
import { compareIds, STREAM_START } from "./stream-id.js";

export const NODES = ["n0", "n1", "n2"] as const;
export const CLIENTS = ["s0", "s1"] as const;

/** One step of the interleaving (an index out of range or a step not possible now does nothing). */
export type Step =
  | { readonly k: "publish"; readonly node: number }
  | { readonly k: "commit"; readonly node: number }
  | { readonly k: "read"; readonly node: number; readonly count: number }
  | { readonly k: "connect"; readonly node: number; readonly client: number; readonly clean: boolean }
  | { readonly k: "settle"; readonly node: number }
  | { readonly k: "notice"; readonly node: number }
  | { readonly k: "trim" }
  | { readonly k: "crash"; readonly node: number }
  | { readonly k: "restart"; readonly node: number }
  | { readonly k: "adopt"; readonly node: number; readonly dead: number };

interface Entry {
  readonly id: string;
  readonly origin: OriginTag;
  readonly msg: number;
}
type Op =
  | { readonly k: "xadd"; readonly origin: OriginTag; readonly msg: number }
  | { readonly k: "queue"; readonly client: string; readonly gen: number; readonly msg: number }
  | { readonly k: "cursor"; readonly id: string }
  | { readonly k: "settled"; readonly client: string }
  | { readonly k: "create"; readonly client: string; readonly gen: number };
interface Group {
  readonly client: string | undefined;
  readonly token: number | undefined;
  readonly ops: readonly Op[];
}
interface Installed {
  readonly token: number;
  readonly gen: number;
}
interface Settling extends Installed {
  readonly base: RouteBase;
}
interface SimNode {
  up: boolean;
  incarnation: number;
  counter: number;
  position: string;
  cursorUncommitted: boolean;
  pending: Group[];
  readonly sessions: Map<string, Installed>;
  readonly settling: Map<string, Settling>;
  readonly tokens: Map<string, number>;
  unread: { readonly origin: OriginTag; readonly msg: number; id?: string }[];
  notices: string[];
  seen: OriginsSeen;
}

/** One session incarnation (a client id's session from one clean start on). */
export interface Incarnation {
  readonly key: string;
  /** The stream's tip when it was created: entries after it are owed to it. */
  readonly since: string;
  ended: boolean;
  /** Every message ever appended to its stored queue, in order. */
  readonly got: number[];
}

/** The outcome of a run, for {@link checkHistory}. */
export interface History {
  readonly incarnations: readonly Incarnation[];
  /** Acknowledged messages: the id of their entry and the node that accepted them. */
  readonly acked: ReadonlyMap<number, { readonly id: string; readonly node: string }>;
  /** Writes that broke the protocol as they happened (e.g. into another incarnation's queue). */
  readonly faults: readonly string[];
}

/** Runs `steps`, then lets every node recover and catch up; returns the history. */
export function runCluster(steps: readonly Step[], floor: typeof trimFloor = trimFloor, settleAtStart = true): History {
  let nextId = 1;
  let tokens = 0;
  let incarnations = 0;
  let msgs = 0;
  let gens = 0;
  const stream: Entry[] = [];
  const cursors = new Map<string, string>();
  const owner = new Map<string, { token: number; node: string }>();
  const stored = new Map<string, Incarnation & { readonly gen: number }>();
  const bases = new Map<string, RouteBase>();
  const all: Incarnation[] = [];
  const acked = new Map<number, { id: string; node: string }>();
  const faults: string[] = [];
  const tip = (): string => stream.at(-1)?.id ?? STREAM_START;
  const newNode = (): SimNode => ({ up: true, incarnation: ++incarnations, counter: 0, position: tip(), cursorUncommitted: false, pending: [], sessions: new Map(), settling: new Map(), tokens: new Map(), unread: [], notices: [], seen: new OriginsSeen() });
  const nodes = NODES.map((id) => {
    cursors.set(id, STREAM_START);
    return newNode();
  });
  const nameOf = (i: number): string => NODES[i] ?? "";

  const claim = (node: number, client: string): { token: number; previous: string | undefined } => {
    const previous = owner.get(client)?.node;
    const token = ++tokens;
    owner.set(client, { token, node: nameOf(node) });
    const told = previous === undefined ? undefined : nodes[NODES.indexOf(previous as (typeof NODES)[number])];
    if (previous !== undefined && previous !== nameOf(node)) told?.notices.push(client);
    return { token, previous };
  };
  // A new incarnation: in the router at once, in Redis when its record's batch commits.
  const create = (client: string, token: number, n: SimNode): void => {
    const gen = ++gens;
    n.sessions.set(client, { token, gen });
    n.tokens.set(client, token);
    n.pending.push({ client, token, ops: [{ k: "create", client, gen }] });
  };
  const forget = (n: SimNode, client: string): void => {
    n.sessions.delete(client);
    n.settling.delete(client);
    n.pending = n.pending.filter((g) => g.client !== client);
  };
  const route = (n: SimNode, msg: number): void => {
    for (const [client, s] of n.sessions) n.pending.push({ client, token: s.token, ops: [{ k: "queue", client, gen: s.gen, msg }] });
  };
  // A claim that found a stored session: its route base (handoff-rules), then the replay's wait.
  const take = (n: SimNode, client: string, token: number, previous: string | undefined): void => {
    const inc = stored.get(client);
    if (inc === undefined) return;
    const base = routeBaseOnClaim(bases.get(client), previous, previous === undefined ? undefined : cursors.get(previous), tip());
    forget(n, client);
    n.tokens.set(client, token);
    if (base === undefined) {
      n.sessions.set(client, { token, gen: inc.gen });
      return;
    }
    bases.set(client, base);
    n.settling.set(client, { token, gen: inc.gen, base });
  };

  const commit = (n: SimNode, self: string): void => {
    const batch = n.pending;
    n.pending = [];
    n.cursorUncommitted = false;
    const refused = new Set<string>();
    for (const g of batch) {
      if (g.client !== undefined && owner.get(g.client)?.token !== g.token) {
        refused.add(g.client);
        continue;
      }
      for (const op of g.ops) {
        switch (op.k) {
          case "xadd": {
            const id = `${String(nextId++)}-0`;
            stream.push({ id, origin: op.origin, msg: op.msg });
            acked.set(op.msg, { id, node: self });
            // The batch's reply names each append's id (RouteAppends.committed).
            const unread = n.unread.find((u) => u.origin.incarnation === op.origin.incarnation && u.origin.counter === op.origin.counter);
            if (unread !== undefined) unread.id = id;
            break;
          }
          case "queue": {
            const inc = stored.get(op.client);
            if (inc?.gen !== op.gen) faults.push(`message ${String(op.msg)} written for ${op.client}#${String(op.gen)} into ${inc?.key ?? "no session"}`);
            else inc.got.push(op.msg);
            break;
          }
          case "cursor":
            cursors.set(self, op.id);
            break;
          case "settled":
            bases.delete(op.client);
            break;
          case "create": {
            const old = stored.get(op.client);
            if (old !== undefined) old.ended = true;
            const inc = { key: `${op.client}#${String(op.gen)}`, since: tip(), ended: false, got: [], gen: op.gen };
            all.push(inc);
            stored.set(op.client, inc);
            bases.delete(op.client);
            break;
          }
          default: {
            const never: never = op;
            throw new Error(`unknown op ${JSON.stringify(never)}`);
          }
        }
      }
    }
    for (const client of refused) forget(n, client);
  };

  const step = (s: Step): void => {
    if (s.k === "trim") {
      const at = floor(cursors.values(), [...bases.values()].map((b) => b.cursor));
      if (at !== undefined) for (let i = stream.length - 1; i >= 0; i--) if (compareIds(stream[i]?.id ?? "", at) < 0) stream.splice(i, 1);
      return;
    }
    const n = nodes[s.node];
    const self = nameOf(s.node);
    if (n === undefined) return;
    if (s.k === "restart") {
      if (n.up) return;
      const fresh = newNode();
      // openRoute: from its committed cursor, or, forgotten or new, from the tip (recorded at once).
      const cursor = cursors.get(self);
      fresh.position = cursor ?? tip();
      cursors.set(self, fresh.position);
      nodes[s.node] = fresh;
      // RedisStore.open: the sessions this node held, claimed again and restored as stored; one
      // whose route base is still unsettled (this node crashed before its replay committed) is
      // replayed first, as a session moving here is.
      for (const [client, o] of [...owner]) {
        const inc = stored.get(client);
        if (o.node !== self || inc === undefined) continue;
        const { token } = claim(s.node, client);
        fresh.tokens.set(client, token);
        const base = bases.get(client);
        if (base === undefined || !settleAtStart) fresh.sessions.set(client, { token, gen: inc.gen });
        else fresh.settling.set(client, { token, gen: inc.gen, base });
      }
      // Its appends of earlier runs after its cursor count as unread (redis-store's open).
      if (cursor !== undefined) fresh.unread = stream.filter((e) => e.origin.node === self && compareIds(e.id, fresh.position) > 0).map((e) => ({ origin: e.origin, msg: e.msg, id: e.id }));
      return;
    }
    if (!n.up) return;
    switch (s.k) {
      case "publish": {
        const msg = msgs++;
        n.counter += 1;
        const origin = { node: self, incarnation: n.incarnation, counter: n.counter };
        route(n, msg); // the router's deliveries first, then the append (onPublished)
        n.pending.push({ client: undefined, token: undefined, ops: [{ k: "xadd", origin, msg }] });
        n.unread.push({ origin, msg });
        return;
      }
      case "commit":
        commit(n, self);
        return;
      case "read": {
        if (n.cursorUncommitted) return; // the reader commits its cursor before it reads on
        const batch = stream.filter((e) => compareIds(e.id, n.position) > 0).slice(0, Math.max(1, s.count));
        const last = batch.at(-1);
        if (last === undefined) return;
        for (const e of batch) {
          if (!n.seen.fresh(e.origin)) continue;
          if (e.origin.node === self) {
            n.unread = n.unread.filter((u) => !appendedBefore(u.origin, e.origin));
            continue;
          }
          route(n, e.msg);
        }
        n.position = last.id;
        n.pending.push({ client: undefined, token: undefined, ops: [{ k: "cursor", id: last.id }] });
        n.cursorUncommitted = true;
        return;
      }
      case "connect": {
        const client = CLIENTS[s.client];
        if (client === undefined) return;
        const current = owner.get(client)?.token === n.tokens.get(client) && n.sessions.has(client);
        if (current && !s.clean) return;
        const { token, previous } = claim(s.node, client);
        if (s.clean || stored.get(client) === undefined) {
          // The claim's script records the stored session's route base all the same (the clean
          // start's batch deletes it): until that commits, the next claim starts from it.
          if (!current && stored.get(client) !== undefined) {
            const base = routeBaseOnClaim(bases.get(client), previous, previous === undefined ? undefined : cursors.get(previous), tip());
            if (base !== undefined) bases.set(client, base);
          }
          forget(n, client);
          create(client, token, n);
        } else {
          take(n, client, token, previous);
        }
        return;
      }
      case "settle": {
        for (const [client, settling] of n.settling) {
          if (compareIds(n.position, replayTarget(settling.base)) < 0) continue;
          const entries = stream.filter((e) => compareIds(e.id, settling.base.cursor) > 0 && compareIds(e.id, n.position) <= 0);
          const seen = new OriginsSeen();
          const owed = owedEntries(settling.base, n.position, entries, n.unread, (origin) => seen.fresh(origin));
          n.pending.push({ client, token: settling.token, ops: [...owed.map((e) => ({ k: "queue" as const, client, gen: settling.gen, msg: e.msg })), { k: "settled", client }] });
          n.settling.delete(client);
          n.sessions.set(client, { token: settling.token, gen: settling.gen });
        }
        return;
      }
      case "notice":
        for (const client of n.notices.splice(0)) if (owner.get(client)?.token !== n.tokens.get(client)) forget(n, client);
        return;
      case "crash":
        n.up = false;
        return;
      case "adopt": {
        const dead = nodes[s.dead];
        const deadName = nameOf(s.dead);
        if (dead === undefined || dead.up || s.dead === s.node) return;
        // wills-adoption.ts: claimed only while the dead node still holds the session.
        for (const [client, o] of [...owner]) if (o.node === deadName) take(n, client, claim(s.node, client).token, deadName);
        // liveness.ts forget: the dead node leaves the cluster with its cursor.
        cursors.delete(deadName);
        return;
      }
      default: {
        const never: never = s;
        throw new Error(`unknown step ${JSON.stringify(never)}`);
      }
    }
  };

  for (const s of steps) step(s);
  // Recovery: every node up, then rounds of notices, settles, reads and commits until quiet.
  nodes.forEach((_, i) => {
    step({ k: "restart", node: i });
  });
  for (let round = 0; round < 10_000; round++) {
    const before = JSON.stringify([stream.length, [...cursors], nodes.map((n) => [n.pending.length, n.settling.size, n.position])]);
    nodes.forEach((_, i) => {
      step({ k: "notice", node: i });
      step({ k: "settle", node: i });
      step({ k: "commit", node: i });
      step({ k: "read", node: i, count: 64 });
      step({ k: "commit", node: i });
    });
    const after = JSON.stringify([stream.length, [...cursors], nodes.map((n) => [n.pending.length, n.settling.size, n.position])]);
    if (before === after) break;
  }
  return { incarnations: all, acked, faults };
}

/**
 * The violations of a history: a message lost for an incarnation alive at the end that existed
 * when it was appended, a second copy, first copies out of one publisher's order, a copy of a
 * message never acknowledged.
 */
export function checkHistory(history: History): string[] {
  const out = [...history.faults];
  for (const inc of history.incarnations) {
    const seen = new Set<number>();
    const lastOf = new Map<string, number>();
    for (const msg of inc.got) {
      const ack = history.acked.get(msg);
      if (ack === undefined) out.push(`${inc.key} got message ${String(msg)}, never acknowledged`);
      if (seen.has(msg)) out.push(`${inc.key} got message ${String(msg)} twice`);
      seen.add(msg);
      const node = ack?.node ?? "";
      if ((lastOf.get(node) ?? -1) > msg) out.push(`${inc.key} got message ${String(msg)} of ${node} after a later one`);
      lastOf.set(node, Math.max(lastOf.get(node) ?? -1, msg));
    }
    if (inc.ended) continue;
    for (const [msg, ack] of history.acked) if (compareIds(ack.id, inc.since) > 0 && !seen.has(msg)) out.push(`${inc.key} lost message ${String(msg)} (${ack.id} of ${ack.node})`);
  }
  return out;
}
