// The steps of the router's model-based property test (router.property.test.ts) and the
// fast-check arbitraries that draw them: what a client, a publisher or the process can do next.
import fc from "fast-check";
import type { QoS } from "../codec/packet.js";

export const CLIENTS = ["c0", "c1", "c2"] as const;
export const TOPICS = ["a", "b", "a/x"] as const;
export const FILTERS = ["a", "b", "+", "a/#", "#"] as const;
/** Inbound QoS 2 packet ids a client may send: few, so releases meet receipts. */
const INBOUND_IDS = 3;

export type Op =
  | { k: "connect"; c: number; clean: boolean; expiry: 0 | 3600; rmax: number; bindNow: boolean; v: 4 | 5 }
  | { k: "bind"; c: number }
  | { k: "subscribe"; c: number; f: number; qos: QoS }
  | { k: "unsubscribe"; c: number; f: number }
  | { k: "plan"; t: number; qos: QoS; executeNow: boolean }
  | { k: "execute"; pick: number }
  | { k: "reexecute"; pick: number }
  | { k: "foreign"; pick: number }
  | { k: "ack"; c: number; pick: number }
  | { k: "inbound"; c: number; id: number; received: boolean }
  // MQTT 5's DISCONNECT may change the Session Expiry Interval ("keep": it carries none).
  | { k: "disconnect"; c: number; expiry: "keep" | 0 | 3600 }
  // The process dies and a new router is restored from what the store recorded.
  | { k: "restart" };

const client = fc.integer({ min: 0, max: CLIENTS.length - 1 });
const qos = fc.constantFrom<QoS>(0, 1, 2);
const restart = fc.record({ k: fc.constant("restart" as const) });
const disconnect = fc.record({ k: fc.constant("disconnect" as const), c: client, expiry: fc.constantFrom<"keep" | 0 | 3600>("keep", "keep", 0, 3600) });

export const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant("connect" as const), c: client, clean: fc.boolean(), expiry: fc.constantFrom<0 | 3600>(0, 3600, 3600), rmax: fc.integer({ min: 1, max: 3 }), bindNow: fc.boolean(), v: fc.constantFrom<4 | 5>(4, 5, 5) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("bind" as const), c: client }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("subscribe" as const), c: client, f: fc.integer({ min: 0, max: FILTERS.length - 1 }), qos }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("unsubscribe" as const), c: client, f: fc.integer({ min: 0, max: FILTERS.length - 1 }) }) },
  { weight: 6, arbitrary: fc.record({ k: fc.constant("plan" as const), t: fc.integer({ min: 0, max: TOPICS.length - 1 }), qos, executeNow: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("execute" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("reexecute" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("foreign" as const), pick: fc.nat() }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant("ack" as const), c: client, pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("inbound" as const), c: client, id: fc.integer({ min: 1, max: INBOUND_IDS }), received: fc.boolean() }) },
  { weight: 2, arbitrary: disconnect },
  { weight: 1, arbitrary: restart },
);

// Mostly persistent sessions and frequent restarts: what a restart must bring back (queues,
// in-flight flows in either phase, subscriptions, inbound QoS 2 ids) is there often when it comes.
export const restartOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant("connect" as const), c: client, clean: fc.constantFrom(false, false, false, true), expiry: fc.constantFrom<0 | 3600>(0, 3600, 3600, 3600), rmax: fc.integer({ min: 1, max: 3 }), bindNow: fc.boolean(), v: fc.constantFrom<4 | 5>(4, 5, 5) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("bind" as const), c: client }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("subscribe" as const), c: client, f: fc.integer({ min: 0, max: FILTERS.length - 1 }), qos }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("unsubscribe" as const), c: client, f: fc.integer({ min: 0, max: FILTERS.length - 1 }) }) },
  { weight: 6, arbitrary: fc.record({ k: fc.constant("plan" as const), t: fc.integer({ min: 0, max: TOPICS.length - 1 }), qos, executeNow: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("execute" as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("ack" as const), c: client, pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("inbound" as const), c: client, id: fc.integer({ min: 1, max: INBOUND_IDS }), received: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("reexecute" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: disconnect },
  { weight: 2, arbitrary: restart },
);

/** Two persistent subscribers and a clean one, so a restart soon has something to bring back and something to end. */
export const restartStart: readonly Op[] = [
  { k: "connect", c: 0, clean: true, expiry: 3600, rmax: 2, bindNow: true, v: 5 },
  { k: "subscribe", c: 0, f: 4, qos: 2 },
  { k: "connect", c: 1, clean: true, expiry: 3600, rmax: 1, bindNow: true, v: 4 },
  { k: "subscribe", c: 1, f: 3, qos: 1 },
  { k: "connect", c: 2, clean: true, expiry: 0, rmax: 3, bindNow: true, v: 5 },
  { k: "subscribe", c: 2, f: 2, qos: 2 },
];

// One client resuming with a new Receive Maximum each time, QoS 2 only: where PUBREL resends and
// DUP PUBLISHes meet a smaller quota, and a restart catches flows in either phase.
export const resumeOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ k: fc.constant("connect" as const), c: fc.constant(0), clean: fc.constant(false), expiry: fc.constant<3600>(3600), rmax: fc.integer({ min: 1, max: 4 }), bindNow: fc.boolean(), v: fc.constantFrom<4 | 5>(4, 5) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("bind" as const), c: fc.constant(0) }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant("plan" as const), t: fc.constant(0), qos: fc.constant<QoS>(2), executeNow: fc.constant(true) }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant("ack" as const), c: fc.constant(0), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("disconnect" as const), c: fc.constant(0), expiry: fc.constant<"keep">("keep") }) },
  { weight: 1, arbitrary: restart },
);

export const resumeStart: readonly Op[] = [
  { k: "connect", c: 0, clean: true, expiry: 3600, rmax: 4, bindNow: true, v: 5 },
  { k: "subscribe", c: 0, f: 4, qos: 2 },
];
