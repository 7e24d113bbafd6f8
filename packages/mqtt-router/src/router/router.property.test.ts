// Model-based property test of the router invariants (DESIGN.md, router invariants 1-5, 7 and 9):
// random sequences of connect (clean | resume, MQTT 3.1.1 | 5, a Receive Maximum each time),
// bind, subscribe, unsubscribe, publish planned now and executed later (and again, and by another
// router), acknowledgements, disconnects and session ends, against a reference model of which
// session incarnation is owed which message.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { QoS } from "../codec/packet.js";
import type { DeliveryPlan } from "./plan.js";
import type { ExecuteOutcome } from "./publish.js";
import { Router } from "./router.js";
import type { OutboundPublish } from "./sink.js";
import { ManualClock } from "@handoff/seqlog";

const CLIENTS = ["c0", "c1", "c2"] as const;
const TOPICS = ["a", "b", "a/x"] as const;
const FILTERS = ["a", "b", "+", "a/#", "#"] as const;

type Op =
  | { k: "connect"; c: number; clean: boolean; expiry: 0 | 3600; rmax: number; bindNow: boolean; v: 4 | 5 }
  | { k: "bind"; c: number }
  | { k: "subscribe"; c: number; f: number; qos: QoS }
  | { k: "unsubscribe"; c: number; f: number }
  | { k: "plan"; t: number; qos: QoS; executeNow: boolean }
  | { k: "execute"; pick: number }
  | { k: "reexecute"; pick: number }
  | { k: "foreign"; pick: number }
  | { k: "ack"; c: number; pick: number }
  | { k: "disconnect"; c: number };

const client = fc.integer({ min: 0, max: CLIENTS.length - 1 });
const qos = fc.constantFrom<QoS>(0, 1, 2);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant("connect" as const), c: client, clean: fc.boolean(), expiry: fc.constantFrom<0 | 3600>(0, 3600, 3600), rmax: fc.integer({ min: 1, max: 3 }), bindNow: fc.boolean(), v: fc.constantFrom<4 | 5>(4, 5, 5) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("bind" as const), c: client }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("subscribe" as const), c: client, f: fc.integer({ min: 0, max: FILTERS.length - 1 }), qos }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("unsubscribe" as const), c: client, f: fc.integer({ min: 0, max: FILTERS.length - 1 }) }) },
  { weight: 6, arbitrary: fc.record({ k: fc.constant("plan" as const), t: fc.integer({ min: 0, max: TOPICS.length - 1 }), qos, executeNow: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("execute" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("reexecute" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("foreign" as const), pick: fc.nat() }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant("ack" as const), c: client, pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("disconnect" as const), c: client }) },
);

// One client resuming with a new Receive Maximum each time, QoS 2 only: where PUBREL resends and
// DUP PUBLISHes meet a smaller quota.
const resumeOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ k: fc.constant("connect" as const), c: fc.constant(0), clean: fc.constant(false), expiry: fc.constant<3600>(3600), rmax: fc.integer({ min: 1, max: 4 }), bindNow: fc.boolean(), v: fc.constantFrom<4 | 5>(4, 5) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("bind" as const), c: fc.constant(0) }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant("plan" as const), t: fc.constant(0), qos: fc.constant<QoS>(2), executeNow: fc.constant(true) }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant("ack" as const), c: fc.constant(0), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("disconnect" as const), c: fc.constant(0) }) },
);
const resumeStart: Op[] = [
  { k: "connect", c: 0, clean: true, expiry: 3600, rmax: 4, bindNow: true, v: 5 },
  { k: "subscribe", c: 0, f: 4, qos: 2 },
];

function matches(filter: string, topic: string): boolean {
  const f = filter.split("/");
  const t = topic.split("/");
  for (let i = 0; i < f.length; i++) {
    if (f[i] === "#") return true;
    if (i >= t.length) return false;
    if (f[i] !== "+" && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

interface ModelClient {
  /** Session incarnation: changes when a clean start or a session end replaces the session. */
  incarnation: number;
  alive: boolean;
  generation: number | undefined;
  bound: boolean;
  expiry: 0 | 3600;
  rmax: number;
  subs: Map<string, QoS>;
  /** Packet ids sent on the current connection and not yet finished, in order. */
  outstanding: { packetId: number; qos: QoS; phase: "publish" | "pubrel" }[];
  /** Connections so far for this incarnation: a DUP resend needs a reconnect in between. */
  connections: number;
}

interface Received {
  readonly incarnation: number;
  readonly connection: number;
  readonly publish: OutboundPublish;
}

interface PlannedMessage {
  readonly id: number;
  readonly qos: QoS;
  /** client -> (incarnation, max granted QoS) at plan time */
  readonly owed: Map<number, { incarnation: number; granted: QoS }>;
  executedInOrder?: number;
  /** Targets whose incarnation was still current at execution: the copies really owed. */
  readonly live: Set<number>;
}

function run(ops: readonly Op[]): void {
  const clock = new ManualClock(0);
  const router = new Router({ clock, queueLimits: { maxCount: 100_000, maxBytes: 1 << 30 } });
  // Another router in the same process (as after an in-process restore): its plans never land here.
  const other = new Router({ clock });
  const model: ModelClient[] = CLIENTS.map(() => ({ incarnation: 0, alive: false, generation: undefined, bound: false, expiry: 3600, rmax: 1, subs: new Map(), outstanding: [], connections: 0 }));
  const received: Received[][] = CLIENTS.map(() => []);
  const messages: PlannedMessage[] = [];
  const pending: { plan: DeliveryPlan; message: PlannedMessage }[] = [];
  const done: DeliveryPlan[] = [];
  let nextIncarnation = 1;
  let executed = 0;

  const sinkFor = (c: number, incarnation: number, connection: number) => ({
    publish(publish: OutboundPublish): boolean {
      const m = model[c];
      if (m === undefined) throw new Error("no client");
      // Invariant 7: nothing reaches a displaced connection.
      expect(connection).toBe(m.connections);
      received[c]?.push({ incarnation, connection, publish });
      if (publish.qos > 0 && publish.packetId !== undefined) m.outstanding.push({ packetId: publish.packetId, qos: publish.qos, phase: "publish" });
      // Receive Maximum [MQTT-3.3.4-9].
      expect(m.outstanding.length).toBeLessThanOrEqual(m.rmax);
      return true;
    },
    pubrel(packetId: number): void {
      const m = model[c];
      if (m === undefined) throw new Error("no client");
      // A PUBREL resend is never limited by Receive Maximum [MQTT-3.3.4-10]: no bound here.
      m.outstanding.push({ packetId, qos: 2, phase: "pubrel" });
    },
  });

  const endSession = (m: ModelClient): void => {
    m.alive = false;
    m.subs.clear();
    m.incarnation = nextIncarnation++;
  };

  const connect = (c: number, clean: boolean, expiry: 0 | 3600, rmax: number, bindNow: boolean, v: 4 | 5 = 5): void => {
    const m = model[c];
    if (m === undefined) return;
    // 3.1.1 has no expiry: CleanSession=1 is expiry 0, CleanSession=0 never expires.
    if (v === 4) expiry = clean ? 0 : 3600;
    // 9. Clean means clean: a session ending with its connection is not resumed by a takeover.
    const resumes = !clean && m.alive && !(m.generation !== undefined && m.expiry === 0);
    if (!resumes) endSession(m);
    m.alive = true;
    m.expiry = expiry;
    m.rmax = rmax;
    m.bound = false;
    m.outstanding = [];
    m.connections += 1;
    const outcome = router.connect({
      clientId: CLIENTS[c] ?? "",
      cleanStart: clean,
      sessionExpiryInterval: expiry,
      receiveMaximum: rmax,
      protocolVersion: v,
      sink: sinkFor(c, m.incarnation, m.connections),
    });
    expect(outcome.sessionPresent).toBe(resumes);
    m.generation = outcome.generation;
    if (bindNow) {
      m.bound = true;
      router.bind(CLIENTS[c] ?? "", outcome.generation);
    }
  };

  const ack = (c: number, pick: number): void => {
    const m = model[c];
    if (m?.generation === undefined || m.outstanding.length === 0) return;
    const index = pick % m.outstanding.length;
    const entry = m.outstanding[index];
    if (entry === undefined) return;
    m.outstanding.splice(index, 1);
    if (entry.qos === 2 && entry.phase === "publish") {
      router.pubrec(CLIENTS[c] ?? "", m.generation, entry.packetId);
      m.outstanding.push({ ...entry, phase: "pubrel" }); // the PUBREL the connection sends
    } else {
      router.acknowledge(CLIENTS[c] ?? "", m.generation, entry.packetId);
    }
  };

  const execute = (index: number): void => {
    const [item] = pending.splice(index, 1);
    if (item === undefined) return;
    item.message.executedInOrder = executed++;
    for (const [c, owed] of item.message.owed) {
      const m = model[c];
      if (m !== undefined && m.alive && m.incarnation === owed.incarnation) item.message.live.add(c);
    }
    expect(router.execute(item.plan).refused).toBe(false);
    done.push(item.plan);
  };

  // A plan runs once, in the router that made it: again, or elsewhere, it is refused whole.
  const refused = (outcome: ExecuteOutcome, plan: DeliveryPlan): void => {
    expect(outcome).toEqual({ queued: 0, stale: plan.targets.length, dropped: 0, noMatchingSubscribers: plan.targets.length === 0, refused: true, retainRefused: false, congested: [] });
  };

  // 4. A bound owner never has a PUBREL waiting in its queue, whatever its quota.
  const noPubrelHeld = (): void => {
    model.forEach((m, c) => {
      const session = router.session(CLIENTS[c] ?? "");
      if (!m.bound || session === undefined) return;
      const held = [...session.queue.queued()].filter((entry) => session.assigned.get(entry.seq)?.phase === "pubrel");
      if (held.length > 0) expect(held.map((entry) => entry.seq)).toEqual([]);
    });
  };

  for (const o of ops) {
    switch (o.k) {
      case "connect":
        connect(o.c, o.clean, o.expiry, o.rmax, o.bindNow, o.v);
        break;
      case "bind": {
        const m = model[o.c];
        if (m?.generation !== undefined && !m.bound) {
          m.bound = true;
          router.bind(CLIENTS[o.c] ?? "", m.generation);
        }
        break;
      }
      case "subscribe": {
        const m = model[o.c];
        const filter = FILTERS[o.f] ?? "#";
        if (m?.generation === undefined) break;
        router.subscribe(CLIENTS[o.c] ?? "", m.generation, [{ filter, qos: o.qos, noLocal: false, retainAsPublished: false, retainHandling: 2 }]);
        m.subs.set(filter, o.qos);
        break;
      }
      case "unsubscribe": {
        const m = model[o.c];
        const filter = FILTERS[o.f] ?? "#";
        if (m?.generation === undefined) break;
        router.unsubscribe(CLIENTS[o.c] ?? "", m.generation, [filter]);
        m.subs.delete(filter);
        break;
      }
      case "plan": {
        const topic = TOPICS[o.t] ?? "a";
        const id = messages.length;
        const owed = new Map<number, { incarnation: number; granted: QoS }>();
        model.forEach((m, c) => {
          if (!m.alive) return;
          let granted: QoS | undefined;
          for (const [filter, q] of m.subs) if (matches(filter, topic) && (granted === undefined || q > granted)) granted = q;
          if (granted !== undefined) owed.set(c, { incarnation: m.incarnation, granted });
        });
        const planned: PlannedMessage = { id, qos: o.qos, owed, live: new Set() };
        messages.push(planned);
        const plan = router.plan({ topic, payload: new TextEncoder().encode(String(id)), qos: o.qos, retain: false, properties: {} });
        pending.push({ plan, message: planned });
        if (o.executeNow) execute(pending.length - 1);
        break;
      }
      case "execute":
        if (pending.length > 0) execute(o.pick % pending.length);
        break;
      case "reexecute": {
        const plan = done[o.pick % Math.max(1, done.length)];
        if (plan !== undefined) refused(router.execute(plan), plan);
        break;
      }
      case "foreign": {
        const item = pending[o.pick % Math.max(1, pending.length)];
        if (item !== undefined) refused(other.execute(item.plan), item.plan);
        break;
      }
      case "ack":
        ack(o.c, o.pick);
        break;
      case "disconnect": {
        const m = model[o.c];
        if (m?.generation === undefined) break;
        router.disconnect(CLIENTS[o.c] ?? "", m.generation, { publishWill: false });
        m.generation = undefined;
        m.bound = false;
        m.outstanding = [];
        if (m.expiry === 0) endSession(m);
        break;
      }
    }
    noPubrelHeld();
  }

  // Drain: execute what is left, bring every live session online and acknowledge until quiet.
  while (pending.length > 0) execute(0);
  model.forEach((m, c) => {
    if (!m.alive) return;
    if (m.generation === undefined || !m.bound) connect(c, false, m.expiry, 3, true);
    for (let guard = 0; guard < 10_000 && m.outstanding.length > 0; guard++) ack(c, 0);
  });

  const idOf = (p: OutboundPublish): number => Number(new TextDecoder().decode(p.payload));
  model.forEach((m, c) => {
    const got = received[c] ?? [];
    const firstSeen = new Map<string, Received>();
    const lastOrder = new Map<number, number>();
    for (const r of got) {
      const msg = messages[idOf(r.publish)];
      expect(msg).toBeDefined();
      if (msg === undefined) continue;
      const owed = msg.owed.get(c);
      // 1. No stray delivery: only to the incarnation the message was planned and executed for.
      expect(owed?.incarnation).toBe(r.incarnation);
      expect(msg.live.has(c)).toBe(true);
      // 5. Effective QoS = min(publish QoS, granted QoS).
      expect(r.publish.qos).toBe(Math.min(msg.qos, owed?.granted ?? 0));
      const key = `${String(r.incarnation)}:${String(msg.id)}`;
      const earlier = firstSeen.get(key);
      if (earlier === undefined) {
        firstSeen.set(key, r);
        // 3. Order: first deliveries follow execution order within an incarnation.
        const order = msg.executedInOrder ?? -1;
        expect(order).toBeGreaterThan(lastOrder.get(r.incarnation) ?? -1);
        lastOrder.set(r.incarnation, order);
      } else {
        // 4. Exactly the spec's duplicates: a resend after a reconnect, same packet id, DUP=1.
        expect(r.publish.dup).toBe(true);
        expect(r.publish.packetId).toBe(earlier.publish.packetId);
        expect(r.connection).toBeGreaterThan(earlier.connection);
      }
    }
    // 2. No loss: every QoS >= 1 copy owed to the live incarnation was delivered, and after the
    // drain nothing is left waiting (every delivery was completed by an acknowledgement).
    if (m.alive) {
      expect(router.session(CLIENTS[c] ?? "")?.queue.count).toBe(0);
      for (const msg of messages) {
        const owed = msg.owed.get(c);
        if (owed?.incarnation !== m.incarnation || !msg.live.has(c)) continue;
        if (Math.min(msg.qos, owed.granted) === 0) continue;
        expect(firstSeen.has(`${String(m.incarnation)}:${String(msg.id)}`)).toBe(true);
      }
    }
  });
}

describe("router invariants over random interleavings", () => {
  it("hold: no stray delivery, no loss on resume, order, only DUP resends, effective QoS, receive maximum, clean means clean, PUBREL never held, plans run once", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        run(ops);
      }),
      { numRuns: 2000 },
    );
  });

  it("hold across resumes with changing Receive Maximum, with QoS 2 flows in both phases", () => {
    fc.assert(
      fc.property(fc.array(resumeOp, { minLength: 1, maxLength: 30, size: "max" }), (ops) => {
        run([...resumeStart, ...ops]);
      }),
      { numRuns: 200 },
    );
  });
});
