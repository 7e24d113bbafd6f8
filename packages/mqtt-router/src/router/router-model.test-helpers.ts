// The runner of the router's model-based property test: plays a sequence of steps against a
// router and a reference model of which session incarnation is owed which message, checks what
// must hold after every step, drains, and hands the result to the oracle.
//
// Restart is modelled as the broker's crash recovery is: the router instance is dropped with its
// unexecuted plans (their publishers were never acknowledged), a new one is built on the same
// store and restored from what the store recorded. The model knows nothing of the store: a
// persistent session (expiry > 0) keeps its incarnation, so every copy it was owed is still owed
// after the restart; a session ending with its connection (expiry 0) ends. A write the router
// skips for a persistent session therefore shows up as a loss, a stray or a repeat.
import { ManualClock } from "@handoff/seqlog";
import { expect } from "vitest";
import type { QoS } from "../codec/packet.js";
import type { DeliveryPlan } from "./plan.js";
import type { ExecuteOutcome } from "./publish.js";
import { Router } from "./router.js";
import { checkReceived, messageIdOf, type PlannedMessage, type Received } from "./router-model-oracle.test-helpers.js";
import { CLIENTS, FILTERS, TOPICS, type Op } from "./router-model-ops.test-helpers.js";
import type { DeliverySink, OutboundPublish } from "./sink.js";
import { SnapshotStore } from "./snapshot-store.js";

/** One step of a client's outbound flows awaiting its answer on the current connection. */
interface Outstanding {
  readonly packetId: number;
  readonly qos: QoS;
  readonly phase: "publish" | "pubrel";
  /** The message a PUBLISH carried; unknown for a PUBREL resend. */
  readonly message: number | undefined;
}

interface ModelClient {
  /** Session incarnation: changes when a clean start, a session end or a restart ends the session. */
  incarnation: number;
  alive: boolean;
  generation: number | undefined;
  bound: boolean;
  expiry: 0 | 3600;
  /** The protocol level of the last connection: only MQTT 5 sends a DISCONNECT expiry. */
  version: 4 | 5;
  rmax: number;
  subs: Map<string, QoS>;
  /** Packet ids sent on the current connection and not yet finished, in order. */
  outstanding: Outstanding[];
  /** Connections so far: a DUP resend needs a reconnect in between. */
  connections: number;
  /** Inbound QoS 2 packet ids received and not released in this incarnation. */
  inbound: Set<number>;
  /** Messages this incarnation finished (PUBACK; PUBREC for QoS 2): never sent again. */
  finished: Set<number>;
  /** QoS 2 packet ids PUBREC'd and not yet completed: each owed a PUBREL on every connection. */
  awaitingComp: Set<number>;
}

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

const sorted = (ids: Iterable<number>): number[] => [...ids].sort((a, b) => a - b);
const QUEUE_LIMITS = { maxCount: 100_000, maxBytes: 1 << 30 };

/** Plays `ops`, drains, and checks every router invariant the model covers. */
export function runModel(ops: readonly Op[]): void {
  const clock = new ManualClock(0);
  // What a durable store would hold: it outlives every router instance of the run.
  const store = new SnapshotStore();
  let router = new Router({ clock, store, queueLimits: QUEUE_LIMITS });
  // Another router in the same process (as after an in-process restore): its plans never land here.
  const other = new Router({ clock });
  const model: ModelClient[] = CLIENTS.map(() => ({ incarnation: 0, alive: false, generation: undefined, bound: false, expiry: 3600, version: 5, rmax: 1, subs: new Map(), outstanding: [], connections: 0, inbound: new Set(), finished: new Set(), awaitingComp: new Set() }));
  const received: Received[][] = CLIENTS.map(() => []);
  const messages: PlannedMessage[] = [];
  const pending: { plan: DeliveryPlan; message: PlannedMessage }[] = [];
  /** Plans the current router must refuse: executed already, or made by a router that died. */
  const done: DeliveryPlan[] = [];
  let nextIncarnation = 1;
  let executed = 0;

  const clientOf = (c: number): ModelClient => {
    const m = model[c];
    if (m === undefined) throw new Error(`no client ${String(c)}`);
    return m;
  };
  const idOf = (c: number): string => CLIENTS[c] ?? "";

  const sinkFor = (c: number, incarnation: number, connection: number): DeliverySink => ({
    publish(publish: OutboundPublish): boolean {
      const m = clientOf(c);
      // Invariant 7: nothing reaches a displaced connection (nor one of a router that died).
      expect(connection).toBe(m.connections);
      received[c]?.push({ incarnation, connection, publish });
      if (publish.qos > 0 && publish.packetId !== undefined) {
        const message = messageIdOf(publish);
        // 4. A finished flow is never started again: a removal or a PUBREL phase the store lost
        // would bring it back after a restart, as a DUP the client must take for a new message.
        expect(m.finished.has(message)).toBe(false);
        m.outstanding.push({ packetId: publish.packetId, qos: publish.qos, phase: "publish", message });
      }
      // Receive Maximum [MQTT-3.3.4-9].
      expect(m.outstanding.length).toBeLessThanOrEqual(m.rmax);
      return true;
    },
    pubrel(packetId: number): void {
      const m = clientOf(c);
      expect(connection).toBe(m.connections);
      // A PUBREL resend is for a flow the client PUBREC'd and not completed, once per connection.
      expect(m.awaitingComp.has(packetId)).toBe(true);
      expect(m.outstanding.some((o) => o.phase === "pubrel" && o.packetId === packetId)).toBe(false);
      // It is never limited by Receive Maximum [MQTT-3.3.4-10]: no bound here.
      m.outstanding.push({ packetId, qos: 2, phase: "pubrel", message: undefined });
    },
  });

  const endSession = (m: ModelClient): void => {
    m.alive = false;
    m.subs.clear();
    m.inbound.clear();
    m.finished.clear();
    m.awaitingComp.clear();
    m.incarnation = nextIncarnation++;
  };

  const connect = (c: number, clean: boolean, expiry: 0 | 3600, rmax: number, bindNow: boolean, v: 4 | 5 = 5): void => {
    const m = clientOf(c);
    // 3.1.1 has no expiry: CleanSession=1 is expiry 0, CleanSession=0 never expires.
    if (v === 4) expiry = clean ? 0 : 3600;
    // 9. Clean means clean: a session ending with its connection is not resumed by a takeover.
    const resumes = !clean && m.alive && !(m.generation !== undefined && m.expiry === 0);
    if (!resumes) endSession(m);
    m.alive = true;
    m.expiry = expiry;
    m.version = v;
    m.rmax = rmax;
    m.bound = false;
    m.outstanding = [];
    m.connections += 1;
    const outcome = router.connect({ clientId: idOf(c), cleanStart: clean, sessionExpiryInterval: expiry, receiveMaximum: rmax, protocolVersion: v, sink: sinkFor(c, m.incarnation, m.connections) });
    expect(outcome.sessionPresent).toBe(resumes);
    // The inbound QoS 2 ids awaiting PUBREL come back with the session, restarts included.
    expect(sorted(outcome.inboundQos2)).toEqual(sorted(m.inbound));
    m.generation = outcome.generation;
    if (bindNow) {
      m.bound = true;
      router.bind(idOf(c), outcome.generation);
    }
  };

  const ack = (c: number, pick: number): void => {
    const m = clientOf(c);
    if (m.generation === undefined || m.outstanding.length === 0) return;
    const index = pick % m.outstanding.length;
    const entry = m.outstanding[index];
    if (entry === undefined) return;
    m.outstanding.splice(index, 1);
    if (entry.message !== undefined) m.finished.add(entry.message);
    if (entry.qos === 2 && entry.phase === "publish") {
      router.pubrec(idOf(c), m.generation, entry.packetId);
      m.awaitingComp.add(entry.packetId);
      m.outstanding.push({ ...entry, phase: "pubrel" }); // the PUBREL the connection sends
    } else {
      if (entry.phase === "pubrel") m.awaitingComp.delete(entry.packetId);
      router.acknowledge(idOf(c), m.generation, entry.packetId);
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

  // A plan runs once, in the router that made it: again, elsewhere or after a restart, it is
  // refused whole.
  const refused = (outcome: ExecuteOutcome, plan: DeliveryPlan): void => {
    expect(outcome).toEqual({ queued: 0, stale: plan.targets.length, dropped: 0, noMatchingSubscribers: plan.targets.length === 0, refused: true, retainRefused: false, congested: [] });
  };

  const restart = (): void => {
    // The process dies: unexecuted plans die with it (no publisher was acknowledged for them), and
    // the old router is never called again. The new one must refuse the dead one's plans.
    for (const item of pending.splice(0)) done.push(item.plan);
    router = new Router({ clock, store, queueLimits: QUEUE_LIMITS });
    router.restore(store.snapshot());
    model.forEach((m, c) => {
      // Connections die with the process: a session ending with its connection ends too.
      if (m.alive && m.expiry === 0) endSession(m);
      m.generation = undefined;
      m.bound = false;
      m.outstanding = [];
      // Persistent sessions come back disconnected; the ended ones are gone, from the store too.
      expect(router.session(idOf(c))?.connected ?? false).toBe(false);
      expect(router.session(idOf(c)) !== undefined).toBe(m.alive);
    });
  };

  // 4. A bound owner never has a PUBREL waiting in its queue, whatever its quota.
  const noPubrelHeld = (): void => {
    model.forEach((m, c) => {
      const session = router.session(idOf(c));
      if (!m.bound || session === undefined) return;
      const held = [...session.queue.queued()].filter((entry) => session.assigned.get(entry.seq)?.phase === "pubrel");
      if (held.length > 0) expect(held.map((entry) => entry.seq)).toEqual([]);
    });
  };

  const step = (o: Op): void => {
    switch (o.k) {
      case "connect":
        connect(o.c, o.clean, o.expiry, o.rmax, o.bindNow, o.v);
        break;
      case "bind": {
        const m = clientOf(o.c);
        if (m.generation !== undefined && !m.bound) {
          m.bound = true;
          router.bind(idOf(o.c), m.generation);
        }
        break;
      }
      case "subscribe": {
        const m = clientOf(o.c);
        const filter = FILTERS[o.f] ?? "#";
        if (m.generation === undefined) break;
        router.subscribe(idOf(o.c), m.generation, [{ filter, qos: o.qos, noLocal: false, retainAsPublished: false, retainHandling: 2 }]);
        m.subs.set(filter, o.qos);
        break;
      }
      case "unsubscribe": {
        const m = clientOf(o.c);
        const filter = FILTERS[o.f] ?? "#";
        if (m.generation === undefined) break;
        router.unsubscribe(idOf(o.c), m.generation, [filter]);
        m.subs.delete(filter);
        break;
      }
      case "plan": {
        const topic = TOPICS[o.t] ?? "a";
        const owed = new Map<number, { incarnation: number; granted: QoS }>();
        model.forEach((m, c) => {
          if (!m.alive) return;
          let granted: QoS | undefined;
          for (const [filter, q] of m.subs) if (matches(filter, topic) && (granted === undefined || q > granted)) granted = q;
          if (granted !== undefined) owed.set(c, { incarnation: m.incarnation, granted });
        });
        const planned: PlannedMessage = { id: messages.length, qos: o.qos, owed, live: new Set() };
        messages.push(planned);
        const plan = router.plan({ topic, payload: new TextEncoder().encode(String(planned.id)), qos: o.qos, retain: false, properties: {} });
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
      case "inbound": {
        const m = clientOf(o.c);
        if (m.generation === undefined) break;
        router.inboundQos2(idOf(o.c), m.generation, o.id, o.received);
        if (o.received) m.inbound.add(o.id);
        else m.inbound.delete(o.id);
        break;
      }
      case "disconnect": {
        const m = clientOf(o.c);
        if (m.generation === undefined) break;
        const expiry = m.version === 5 && o.expiry !== "keep" ? o.expiry : undefined;
        router.disconnect(idOf(o.c), m.generation, { publishWill: false, ...(expiry === undefined ? {} : { sessionExpiryInterval: expiry }) });
        m.generation = undefined;
        m.bound = false;
        m.outstanding = [];
        // A session ending with its connection cannot be given an expiry now [MQTT-3.14.2-2].
        if (expiry !== undefined && m.expiry !== 0) m.expiry = expiry;
        if (m.expiry === 0) endSession(m);
        break;
      }
      case "restart":
        restart();
        break;
    }
  };

  for (const o of ops) {
    step(o);
    noPubrelHeld();
  }

  // Drain: execute what is left, bring every live session online and acknowledge until quiet.
  while (pending.length > 0) execute(0);
  model.forEach((m, c) => {
    if (!m.alive) return;
    if (m.generation === undefined || !m.bound) connect(c, false, m.expiry, 3, true);
    for (let guard = 0; guard < 10_000 && m.outstanding.length > 0; guard++) ack(c, 0);
  });
  model.forEach((m, c) => {
    checkReceived(router, { clientId: idOf(c), incarnation: m.incarnation, alive: m.alive, awaitingComp: m.awaitingComp }, c, received[c] ?? [], messages);
  });
}
