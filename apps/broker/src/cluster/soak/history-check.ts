/**
 * The fault suite's oracle, run on the recorded history after the load.
 *
 * Deliveries (C2, and seed 000 across nodes), per session of a churned id (see churners.ts for
 * when a session ends and what it is owed), through the delivery oracle the crash loop uses
 * (e2e/delivery-oracle.test-helpers.ts): every message acknowledged before the session's end and
 * sent after its SUBACK reaches it (`lost` otherwise); a repeat comes with DUP=1 unless its
 * publisher sent it twice (`unflagged duplicate`); first copies come in publish order per
 * publisher, its connections taken in order (`out of order`). A copy on a topic the session did
 * not subscribe to, or of a message acknowledged before the CONNECT that created the session was
 * sent, is a `stray`: the message was in the cluster before the session existed. (A copy of one
 * acknowledged after that CONNECT but before the SUBSCRIBE is allowed: a node routes another
 * node's message when its reader reaches it; such copies are counted.)
 *
 * Session Present: 1 exactly when the previous connection of the id left a session (its expiry
 * was not 0) and this one does not start clean; left out after an uncertain attempt. The
 * publishers and the will watcher never start clean: every CONNACK after their first must be 1.
 *
 * Wills (C1, C3), following the router (packages/mqtt-router/src/router/takeover.ts, wills.ts,
 * handoff.ts: adopt): a will fires when its connection ends without a normal DISCONNECT — a
 * takeover fires a will without delay at once, a clean start fires any will (the session ends), a
 * resume cancels a delayed one [MQTT-3.1.3-9]; a session that ends with its connection (expiry 0)
 * fires it at once; a node that dies leaves its sessions to a survivor, which fires a will without
 * delay at once and keeps a delayed one waiting. So, for a connection that got its CONNACK:
 * - without delay, or expiry 0: exactly once, unless the suite ended it with a normal DISCONNECT;
 * - with a delay longer than the run: exactly once if the next connection of the id starts clean,
 *   never if it resumes or the suite ended it with a normal DISCONNECT;
 * - at most once for a connection that got no CONNACK, or when an uncertain attempt came between
 *   it and the next connection.
 * "Fired" is what the watcher got: two copies without DUP are two firings (`will twice`); a will
 * owed never is `will not owed`.
 * @module
 */
import { deliveryViolations, type Published } from "../../e2e/delivery-oracle.test-helpers.js";
import type { FaultTimeline } from "./fault-timeline.js";
import { seconds } from "./fault-timeline.js";
import { owedTo, receivedBy, type ChurnHistory, type Connection, type Delivery, type Lifetime, type PersistentConnack, type SentMessage } from "./history.js";

export const VIOLATION_KINDS = ["lost", "unflagged duplicate", "out of order", "stray", "session-present mismatch", "will missing", "will twice", "will not owed", "no SUBACK", "other"] as const;
export type ViolationKind = (typeof VIOLATION_KINDS)[number];

/** One broken guarantee: its kind, the moment it is placed at (ms), and what to debug it with. */
export interface Violation {
  readonly kind: ViolationKind;
  readonly at: number;
  readonly text: string;
}

/** What the checker counted besides violations. */
export interface Figures {
  sent: number;
  acknowledged: number;
  attempts: number;
  connected: number;
  refused: number;
  uncertain: number;
  sessions: number;
  /** Sessions an uncertain attempt may have ended early: checked for all but loss. */
  sessionsUnchecked: number;
  /** Owed (session, message) pairs checked, and copies received by the churned sessions. */
  owedChecked: number;
  copies: number;
  dupCopies: number;
  routedAfterSubscribe: number;
  willsOnce: number;
  willsNever: number;
  willsAtMostOnce: number;
  willsFired: number;
}

/** The inputs: the run's records. */
export interface History {
  readonly messages: readonly SentMessage[];
  readonly churn: ChurnHistory;
  readonly willCopies: ReadonlyMap<string, readonly Delivery[]>;
  readonly connacks: readonly PersistentConnack[];
  readonly timeline: FaultTimeline;
}

const at = (ms: number | undefined): string => (ms === undefined ? "never" : seconds(ms));

function describeConnection(c: Connection): string {
  const flags = [c.drain ? "drain" : "", c.stalled ? "stalled" : ""].filter((f) => f !== "").join(",");
  const how = `${c.mode.clean ? "clean" : "resume"}/exp ${String(c.mode.expiry)}${flags === "" ? "" : ` ${flags}`}`;
  if (c.outcome !== "connected") return `#${String(c.attempt)} ${c.node} ${at(c.started)} ${how} ${c.outcome} (${c.failure ?? "?"})`;
  const end = c.closed === undefined ? "" : `, closed ${at(c.closed)}${c.serverDisconnect === undefined ? "" : ` (DISCONNECT 0x${c.serverDisconnect.toString(16)})`}`;
  return `#${String(c.attempt)} ${c.node} CONNACK ${at(c.connected)} SP${c.sessionPresent === true ? "1" : "0"} ${how}${end}`;
}

const describeSession = (l: Lifetime): string => `${l.name} on ${l.filter}, SUBACK ${at(l.subscribed)}, end ${at(l.end)}: [${l.connections.map(describeConnection).join("; ")}]`;
const describeCopies = (copies: readonly Delivery[]): string => copies.map((g) => `${g.node} ${at(g.at)}${g.dup ? " DUP" : ""}`).join(", ");

/** Checks one churned session's deliveries. */
function checkSession(l: Lifetime, published: readonly SentMessage[], byPayload: ReadonlyMap<string, SentMessage>, h: History, out: Violation[], figures: Figures): void {
  const copies = receivedBy(l);
  figures.copies += copies.length;
  figures.dupCopies += copies.filter((g) => g.dup).length;
  for (const g of copies) {
    const m = byPayload.get(g.payload);
    if (m === undefined || g.topic !== l.filter) {
      out.push({ kind: "stray", at: g.at, text: `${l.name} (${l.filter}) got ${g.payload} on ${g.topic} from ${g.node} at ${h.timeline.describe(g.at)}; ${describeSession(l)}` });
    } else if (m.acked !== undefined && m.acked < l.connectSent) {
      out.push({ kind: "stray", at: g.at, text: `${l.name} got ${g.payload} from ${g.node} at ${h.timeline.describe(g.at)}, acknowledged ${at(m.acked)} via ${m.ackNode ?? "?"}, before the session's CONNECT at ${at(l.connectSent)}; ${describeSession(l)}` });
    } else if (m.acked !== undefined && m.acked < l.subscribeSent) figures.routedAfterSubscribe += 1;
  }
  const owed = l.unchecked === undefined ? owedTo(l, published) : [];
  figures.owedChecked += owed.length;
  const publishers = [...new Set(published.map((m) => m.publisher))];
  const records: Published[] = publishers.map((p) => ({
    publisher: p,
    qos: 1,
    acknowledged: owed.filter((m) => m.publisher === p).map((m) => m.payload),
    sends: new Map(published.filter((m) => m.publisher === p).map((m) => [m.payload, m.sends])),
  }));
  const onTopic = copies.filter((g) => g.topic === l.filter && byPayload.has(g.payload));
  for (const line of deliveryViolations(records, [{ subscriber: l.name, qos: 1, got: onTopic }])) out.push(classify(line, l, onTopic, byPayload, h));
}

// Reads a line of the delivery oracle back into a violation with the context to debug it.
function classify(line: string, l: Lifetime, copies: readonly Delivery[], byPayload: ReadonlyMap<string, SentMessage>, h: History): Violation {
  const copiesOf = (payload: string): Delivery[] => copies.filter((g) => g.payload === payload);
  const message = (payload: string): string => {
    const m = byPayload.get(payload);
    return m === undefined ? payload : `${payload} (sent ${at(m.sent)}, acknowledged ${at(m.acked)} via ${m.ackNode ?? "?"}, ${String(m.sends)} PUBLISH)`;
  };
  const lost = /^\S+ never got acknowledged (\S+)$/.exec(line);
  if (lost?.[1] !== undefined) {
    const m = byPayload.get(lost[1]);
    return { kind: "lost", at: m?.acked ?? 0, text: `${l.name} never got ${message(lost[1])}, acknowledged at ${h.timeline.describe(m?.acked ?? 0)}; ${describeSession(l)}` };
  }
  const again = /^\S+ got (\S+) again without DUP$/.exec(line);
  if (again?.[1] !== undefined) {
    const list = copiesOf(again[1]);
    const second = list[1]?.at ?? 0;
    return { kind: "unflagged duplicate", at: second, text: `${l.name} got ${message(again[1])} again without DUP at ${h.timeline.describe(second)}: copies ${describeCopies(list)}; ${describeSession(l)}` };
  }
  const order = /^\S+ got (\S+) after (\S+)$/.exec(line);
  if (order?.[1] !== undefined && order[2] !== undefined) {
    const late = copiesOf(order[1])[0];
    return { kind: "out of order", at: late?.at ?? 0, text: `${l.name} got ${message(order[1])} [${describeCopies(copiesOf(order[1]))}] after ${message(order[2])} [${describeCopies(copiesOf(order[2]))}], at ${h.timeline.describe(late?.at ?? 0)}; ${describeSession(l)}` };
  }
  return { kind: "other", at: 0, text: `${line}; ${describeSession(l)}` };
}

type WillOwed = "once" | "never" | "at most once";

/** What the oracle owes the will of `attempts[i]` (see the module doc). */
export function willOwed(attempts: readonly Connection[], i: number): WillOwed {
  const c = attempts[i];
  if (c?.will === undefined) return "never";
  if (c.outcome !== "connected") return "at most once";
  let j = i + 1;
  for (; j < attempts.length && attempts[j]?.outcome !== "connected"; j++) if (attempts[j]?.outcome === "uncertain") return "at most once";
  const next = attempts[j];
  if (c.will.delaySeconds === 0 || c.mode.expiry === 0) return next === undefined && c.disconnected === true ? "never" : "once";
  if (next === undefined) return c.disconnected === true ? "never" : "at most once";
  return next.mode.clean ? "once" : "never";
}

/** Wills owed once that the watcher has not seen yet (the run waits for them before checking). */
export function willsMissing(churn: ChurnHistory, copies: ReadonlyMap<string, readonly Delivery[]>): number {
  return churn.attempts.reduce((n, attempts) => n + attempts.filter((c, i) => c.will !== undefined && !copies.has(c.will.topic) && willOwed(attempts, i) === "once").length, 0);
}

function checkWills(h: History, out: Violation[], figures: Figures): void {
  const planned = new Set<string>();
  for (const attempts of h.churn.attempts) {
    attempts.forEach((c, i) => {
      if (c.will === undefined) return;
      planned.add(c.will.topic);
      const owed = willOwed(attempts, i);
      if (owed === "once") figures.willsOnce += 1;
      else if (owed === "never") figures.willsNever += 1;
      else figures.willsAtMostOnce += 1;
      const copies = h.willCopies.get(c.will.topic) ?? [];
      const firsts = copies.filter((g) => !g.dup);
      if (copies.length > 0) figures.willsFired += 1;
      const next = attempts.slice(i + 1).find((a) => a.outcome === "connected");
      const between = attempts.slice(i + 1, next?.attempt ?? attempts.length).map(describeConnection);
      const near = (t: number): string => h.connacks.filter((k) => k.clientId === "soak-will-watcher" && Math.abs(k.at - t) < 5000).map((k) => `${k.node} ${at(k.at)} SP${k.sessionPresent ? "1" : "0"}`).join(", ");
      const watcher = near(copies[0]?.at ?? c.closed ?? c.started);
      const context = `${c.will.topic} (delay ${String(c.will.delaySeconds)} s) of ${describeConnection(c)}; ${between.length === 0 ? "" : `failed between: [${between.join("; ")}]; `}next: ${next === undefined ? (c.disconnected === true ? "none, ended by DISCONNECT" : "none") : describeConnection(next)}; copies [${describeCopies(copies)}]${watcher === "" ? "" : `; watcher reconnected: ${watcher}`}`;
      if (owed === "once" && copies.length === 0) {
        const when = next?.started ?? c.closed ?? c.connected ?? c.started;
        out.push({ kind: "will missing", at: when, text: `will never fired: ${context}; its connection ended at ${h.timeline.describe(when)}` });
      } else if (owed === "never" && copies.length > 0) {
        const first = copies[0]?.at ?? 0;
        out.push({ kind: "will not owed", at: first, text: `will fired though its session was resumed or ended by DISCONNECT, at ${h.timeline.describe(first)}: ${context}` });
      } else if (firsts.length > 1) {
        const second = firsts[1]?.at ?? 0;
        out.push({ kind: "will twice", at: second, text: `will fired ${String(firsts.length)} times, the second at ${h.timeline.describe(second)}: ${context}` });
      }
    });
  }
  for (const [topic, copies] of h.willCopies) {
    if (!planned.has(topic)) out.push({ kind: "other", at: copies[0]?.at ?? 0, text: `the watcher got ${topic}, which no connection carried` });
  }
}

/** Checks the whole history: the violations (none when all held) and the figures. */
export function checkHistory(h: History): { readonly violations: Violation[]; readonly figures: Figures } {
  const out: Violation[] = [];
  const attempts = h.churn.attempts.flat();
  const sessions = h.churn.lifetimes.flat();
  const figures: Figures = {
    sent: h.messages.length,
    acknowledged: h.messages.filter((m) => m.acked !== undefined).length,
    attempts: attempts.length,
    connected: attempts.filter((c) => c.outcome === "connected").length,
    refused: attempts.filter((c) => c.outcome === "refused").length,
    uncertain: attempts.filter((c) => c.outcome === "uncertain").length,
    sessions: sessions.length,
    sessionsUnchecked: sessions.filter((l) => l.unchecked !== undefined).length,
    owedChecked: 0,
    copies: 0,
    dupCopies: 0,
    routedAfterSubscribe: 0,
    willsOnce: 0,
    willsNever: 0,
    willsAtMostOnce: 0,
    willsFired: 0,
  };
  const byPayload = new Map(h.messages.map((m) => [m.payload, m]));
  const byId = new Map<number, SentMessage[]>();
  for (const m of h.messages) {
    const list = byId.get(m.id);
    if (list === undefined) byId.set(m.id, [m]);
    else list.push(m);
  }
  for (const l of sessions) {
    checkSession(l, byId.get(l.id) ?? [], byPayload, h, out, figures);
    // A SUBACK waits for its commit, which no fault of the suite holds off for long.
    if (l.subackTimedOut === true) out.push({ kind: "no SUBACK", at: l.subscribeSent, text: `${l.name}: no SUBACK within the timeout for ${l.filter}, sent at ${h.timeline.describe(l.subscribeSent)}; ${describeSession(l)}` });
  }
  for (const list of h.churn.attempts) {
    list.forEach((c, i) => {
      if (c.outcome !== "connected" || c.expectedPresent === undefined || c.sessionPresent === c.expectedPresent) return;
      const previous = list.slice(0, i).reverse().find((a) => a.outcome === "connected");
      const between = list.slice(previous === undefined ? 0 : previous.attempt + 1, i).map(describeConnection);
      const when = c.connected ?? c.started;
      const refused = between.length === 0 ? "" : `; failed between: [${between.join("; ")}]`;
      out.push({ kind: "session-present mismatch", at: when, text: `${c.clientId}: Session Present ${c.sessionPresent === true ? "1" : "0"}, expected ${c.expectedPresent ? "1" : "0"}, at ${h.timeline.describe(when)}: ${describeConnection(c)}; previous ${previous === undefined ? "none" : describeConnection(previous)}${refused}` });
    });
  }
  for (const c of h.connacks) {
    if (!c.first && !c.sessionPresent) out.push({ kind: "session-present mismatch", at: c.at, text: `${c.clientId} (persistent) resumed with Session Present 0 on ${c.node} at ${h.timeline.describe(c.at)}` });
  }
  checkWills(h, out, figures);
  out.sort((a, b) => a.at - b.at);
  return { violations: out, figures };
}
