// The oracle of the router's model-based property test: what each client received, checked at the
// end of a run against what the reference model says each session incarnation was owed.
import { expect } from "vitest";
import type { QoS } from "../codec/packet.js";
import type { Router } from "./router.js";
import type { OutboundPublish } from "./sink.js";

/** One PUBLISH a client got. */
export interface Received {
  readonly incarnation: number;
  readonly connection: number;
  readonly publish: OutboundPublish;
}

/** A publish as the model planned it; its payload is its `id`. */
export interface PlannedMessage {
  readonly id: number;
  readonly qos: QoS;
  /** client -> (incarnation, max granted QoS) at plan time */
  readonly owed: Map<number, { incarnation: number; granted: QoS }>;
  executedInOrder?: number;
  /** Targets whose incarnation was still current at execution: the copies really owed. */
  readonly live: Set<number>;
}

/** What the oracle needs of one model client at the end of a run. */
export interface FinalClient {
  readonly clientId: string;
  readonly incarnation: number;
  readonly alive: boolean;
  /** QoS 2 packet ids PUBREC'd and never completed by a PUBCOMP. */
  readonly awaitingComp: ReadonlySet<number>;
}

/** Reads the message id a copy carries as its payload. */
export const messageIdOf = (p: OutboundPublish): number => Number(new TextDecoder().decode(p.payload));

/** Checks invariants 1-5 over everything `client` received, after a drain left it quiet. */
export function checkReceived(router: Router, client: FinalClient, c: number, got: readonly Received[], messages: readonly PlannedMessage[]): void {
  const firstSeen = new Map<string, Received>();
  const lastSeen = new Map<string, Received>();
  const lastOrder = new Map<number, number>();
  for (const r of got) {
    const msg = messages[messageIdOf(r.publish)];
    expect(msg).toBeDefined();
    if (msg === undefined) continue;
    const owed = msg.owed.get(c);
    // 1. No stray delivery: only to the incarnation the message was planned and executed for, so
    // a clean session (or one a restart ended) never gets what it did not subscribe to itself.
    expect(owed?.incarnation).toBe(r.incarnation);
    expect(msg.live.has(c)).toBe(true);
    // 5. Effective QoS = min(publish QoS, granted QoS).
    expect(r.publish.qos).toBe(Math.min(msg.qos, owed?.granted ?? 0));
    const key = `${String(r.incarnation)}:${String(msg.id)}`;
    const earlier = lastSeen.get(key);
    lastSeen.set(key, r);
    if (earlier === undefined) {
      firstSeen.set(key, r);
      // 3. Order: first deliveries follow execution order within an incarnation, restarts included.
      const order = msg.executedInOrder ?? -1;
      expect(order).toBeGreaterThan(lastOrder.get(r.incarnation) ?? -1);
      lastOrder.set(r.incarnation, order);
    } else {
      // 4. Exactly the spec's duplicates: one resend per reconnect, same packet id, DUP=1.
      expect(r.publish.dup).toBe(true);
      expect(r.publish.packetId).toBe(earlier.publish.packetId);
      expect(r.connection).toBeGreaterThan(earlier.connection);
    }
  }
  if (!client.alive) return;
  // 2. No loss: every QoS >= 1 copy owed to the live incarnation was delivered, whatever restarts
  // came between (the store had it: it was executed, so its publisher was acknowledged), and after
  // the drain nothing is left waiting: every delivery was completed by an acknowledgement.
  expect(router.session(client.clientId)?.queue.count).toBe(0);
  expect([...client.awaitingComp]).toEqual([]);
  for (const msg of messages) {
    const owed = msg.owed.get(c);
    if (owed?.incarnation !== client.incarnation || !msg.live.has(c)) continue;
    if (Math.min(msg.qos, owed.granted) === 0) continue;
    expect(firstSeen.has(`${String(client.incarnation)}:${String(msg.id)}`)).toBe(true);
  }
}
