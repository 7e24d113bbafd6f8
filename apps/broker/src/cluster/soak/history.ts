/**
 * What the fault suite records while it runs, for the checker to read after: every message sent,
 * every connection attempt of the churned client ids (how it came out, what it received, how it
 * ended), the sessions those connections make up, and the will copies the watcher saw. Times are
 * ms since the load started.
 * @module
 */
import type { Got } from "../../e2e/harness.test-helpers.js";

/** One QoS 1 message: payload `<publisher>:<n>`, n counted per publisher. */
export interface SentMessage {
  readonly publisher: string;
  readonly n: number;
  readonly payload: string;
  readonly topic: string;
  /** The churned id whose topics it goes to. */
  readonly id: number;
  /** When `publish` was called. */
  readonly sent: number;
  /** PUBLISH packets sent for it (more than one: the publisher resent it after a reconnect). */
  sends: number;
  /** When its PUBACK (success) arrived, and through which node. */
  acked?: number;
  ackNode?: string;
}

/** A copy a client received, with when and from which node. */
export interface Delivery extends Got {
  readonly at: number;
  readonly node: string;
}

/** How a connection starts: Clean Start and Session Expiry Interval (MQTT 5). */
export interface Mode {
  readonly clean: boolean;
  readonly expiry: number;
}

/** The will a connection carries: QoS 1, its own topic, a Will Delay Interval. */
export interface WillPlan {
  readonly topic: string;
  readonly delaySeconds: number;
}

/**
 * How a connection attempt came out: CONNACK 0; refused for sure (a CONNACK error, or the TCP
 * connection itself refused: the broker changed nothing); or uncertain (the CONNECT may have
 * reached a broker, no CONNACK came: it may or may not have taken the session over).
 */
export type Outcome = "pending" | "connected" | "refused" | "uncertain";

/** One connection attempt of a churned client id. */
export interface Connection {
  readonly clientId: string;
  readonly id: number;
  /** Attempts of this id before it. */
  readonly attempt: number;
  readonly node: string;
  readonly mode: Mode;
  readonly will: WillPlan | undefined;
  /** Inserted to empty a session whose connection could not (see churners.ts), not from the cycle. */
  readonly drain: boolean;
  /** Never acknowledges (MQTT.js stops reading): its deliveries wait for the next connection. */
  readonly stalled: boolean;
  /** When the CONNECT was started. */
  readonly started: number;
  outcome: Outcome;
  /** Why it failed, for the report. */
  failure?: string;
  connected?: number;
  sessionPresent?: boolean;
  /** What Session Present had to be; undefined when an uncertain attempt before it leaves it open. */
  expectedPresent?: boolean | undefined;
  /** When its client saw the connection close, and the server's DISCONNECT reason if one came. */
  closed?: number;
  serverDisconnect?: number;
  /** The suite ended it with a normal DISCONNECT (its will must not fire). */
  disconnected?: boolean;
  readonly got: Delivery[];
}

/** One session of a churned id, from the connection that created it through every resume. */
export interface Lifetime {
  readonly name: string;
  readonly id: number;
  readonly filter: string;
  /** When the CONNECT that created it was started: a copy of a message acknowledged before is a stray. */
  readonly connectSent: number;
  /** When its SUBSCRIBE was sent, and its SUBACK came (Infinity: none came; it is owed nothing). */
  subscribeSent: number;
  subscribed: number;
  /** The SUBACK did not come in time though the connection stayed open on a node never stopped. */
  subackTimedOut?: boolean;
  readonly connections: Connection[];
  /** Messages acknowledged before this are owed to it. */
  end: number;
  /** Why it cannot be checked for loss (an uncertain attempt may have ended it early), if so. */
  unchecked?: string;
}

/** Everything the churners recorded. */
export interface ChurnHistory {
  /** Per id, its attempts in order. */
  readonly attempts: Connection[][];
  /** Per id, its sessions in order. */
  readonly lifetimes: Lifetime[][];
}

/** A CONNACK a persistent client (publisher, will watcher) got: all but its first must resume. */
export interface PersistentConnack {
  readonly clientId: string;
  readonly at: number;
  readonly node: string;
  readonly sessionPresent: boolean;
  readonly first: boolean;
}

/** The messages `l` must get: on its topic, sent after its SUBACK, acknowledged before its end. */
export function owedTo(l: Lifetime, published: readonly SentMessage[]): SentMessage[] {
  return published.filter((m) => m.topic === l.filter && m.sent > l.subscribed && m.acked !== undefined && m.acked < l.end);
}

/** Every copy `l` received, its connections in order. */
export const receivedBy = (l: Lifetime): Delivery[] => l.connections.flatMap((c) => c.got);

/** How many owed messages `l` has not received yet. */
export function missingFrom(l: Lifetime, published: readonly SentMessage[]): number {
  const got = new Set(receivedBy(l).map((g) => g.payload));
  return owedTo(l, published).filter((m) => !got.has(m.payload)).length;
}
