import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodePacket } from "../codec/encode.js";
import type { Packet, ProtocolVersion, QoS } from "../codec/packet.js";
import type { Action } from "./effects.js";
import { TestClient, connectPacket } from "./test-client.test-helpers.js";

// Small id and topic spaces so that random acknowledgements hit the flows in progress.
const id = fc.integer({ min: 1, max: 4 });
const qos = fc.constantFrom<QoS>(0, 1, 2);
const topic = fc.constantFrom("a", "a/b", "c");
const reason = fc.constantFrom(0x00, 0x10, 0x80, 0x87, 0x92);

function clientPacket(version: ProtocolVersion): fc.Arbitrary<Packet> {
  const v5 = version === 5;
  const arbs: fc.Arbitrary<Packet>[] = [
    fc.record({ q: qos, pid: id, t: topic, alias: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }), empty: fc.boolean(), retain: fc.boolean() }).map(
      ({ q, pid, t, alias, empty, retain }): Packet => {
        const properties = v5 && alias !== undefined ? { topicAlias: alias } : {};
        const name = v5 && alias !== undefined && empty ? "" : t;
        const base = { type: "publish", retain, topic: name, payload: new Uint8Array([1, 2]), properties } as const;
        return q === 0 ? { ...base, qos: 0, dup: false } : { ...base, qos: q, dup: false, packetId: pid };
      },
    ),
    fc.record({ type: fc.constantFrom("puback", "pubrec", "pubrel", "pubcomp"), packetId: id, reasonCode: reason }).map(
      ({ type, packetId, reasonCode }): Packet => ({
        type,
        packetId,
        reasonCode: !v5 ? 0 : type === "pubrel" || type === "pubcomp" ? (reasonCode === 0x92 ? 0x92 : 0) : reasonCode === 0x92 ? 0 : reasonCode,
        properties: {},
      }),
    ),
    fc.record({ packetId: id, f: fc.constantFrom("a/+", "b", "$share/g/c", "#") }).map(
      ({ packetId, f }): Packet => ({
        type: "subscribe",
        packetId,
        subscriptions: [{ topicFilter: f, qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0 }],
        properties: {},
      }),
    ),
    fc.record({ packetId: id }).map(({ packetId }): Packet => ({ type: "unsubscribe", packetId, topicFilters: ["a"], properties: {} })),
    fc.constant<Packet>({ type: "pingreq" }),
    fc.constant<Packet>({ type: "pingresp" }),
    fc.constant<Packet>(connectPacket(version)),
    fc.constantFrom(0x00, 0x04, 0x80).map((reasonCode): Packet => ({ type: "disconnect", reasonCode: v5 ? reasonCode : 0, properties: {} })),
  ];
  if (v5) {
    arbs.push(fc.constantFrom(0x18, 0x19, 0x00).map((reasonCode): Packet => ({ type: "auth", reasonCode, properties: { authenticationMethod: "M" } })));
  }
  return fc.oneof(...arbs);
}

type Step =
  | { readonly k: "packet"; readonly packet: Packet }
  | { readonly k: "bytes"; readonly bytes: Uint8Array }
  | { readonly k: "accept" }
  | { readonly k: "reject" }
  | { readonly k: "deliver"; readonly qos: QoS; readonly packetId: number; readonly big: boolean }
  | { readonly k: "acknowledge"; readonly packetId: number; readonly reasonCode: number }
  | { readonly k: "subscribed"; readonly packetId: number }
  | { readonly k: "auth-continue" }
  | { readonly k: "tick"; readonly ms: number }
  | { readonly k: "disconnect" }
  | { readonly k: "lost" };

function step(version: ProtocolVersion): fc.Arbitrary<Step> {
  return fc.oneof(
    { weight: 8, arbitrary: clientPacket(version).map((packet): Step => ({ k: "packet", packet })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 12 }).map((bytes): Step => ({ k: "bytes", bytes })) },
    { weight: 2, arbitrary: fc.constant<Step>({ k: "accept" }) },
    { weight: 1, arbitrary: fc.constant<Step>({ k: "reject" }) },
    { weight: 6, arbitrary: fc.record({ qos, packetId: id, big: fc.boolean() }).map((d): Step => ({ k: "deliver", ...d })) },
    { weight: 3, arbitrary: fc.record({ packetId: id, reasonCode: fc.constantFrom(0, 0x80) }).map((a): Step => ({ k: "acknowledge", ...a })) },
    { weight: 1, arbitrary: id.map((packetId): Step => ({ k: "subscribed", packetId })) },
    { weight: 1, arbitrary: fc.constant<Step>({ k: "auth-continue" }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 20_000 }).map((ms): Step => ({ k: "tick", ms })) },
    { weight: 1, arbitrary: fc.constant<Step>({ k: "disconnect" }) },
    { weight: 1, arbitrary: fc.constant<Step>({ k: "lost" }) },
  );
}

function run(client: TestClient, s: Step): void {
  const conn = client.conn;
  switch (s.k) {
    case "packet": {
      const r = encodePacket(s.packet, { protocolVersion: client.version });
      if (r.ok) conn.receiveBytes(r.bytes);
      return;
    }
    case "bytes":
      conn.receiveBytes(s.bytes);
      return;
    case "accept":
      conn.accept({ sessionPresent: false, inboundQos2PacketIds: [1] });
      return;
    case "reject":
      conn.reject(0x87);
      return;
    case "deliver":
      conn.deliver({
        topic: "a/b",
        payload: new Uint8Array(s.big ? 300 : 3),
        qos: s.qos,
        retain: false,
        dup: false,
        ...(s.qos === 0 ? {} : { packetId: s.packetId }),
      });
      return;
    case "acknowledge":
      conn.acknowledgePublish(s.packetId, s.reasonCode);
      return;
    case "subscribed":
      conn.subscribed(s.packetId, [1]);
      return;
    case "auth-continue":
      conn.authContinue(new Uint8Array([1]));
      return;
    case "tick":
      client.clock.advance(s.ms);
      conn.tick();
      return;
    case "disconnect":
      conn.disconnect(0x8b);
      return;
    case "lost":
      conn.connectionLost();
      return;
    default: {
      const unreachable: never = s;
      throw new Error(`unknown step ${String(unreachable)}`);
    }
  }
}

describe("MqttConnection under random client behaviour", () => {
  it("never throws, emits nothing after close, sends nothing but AUTH before CONNACK, and never exceeds the client's Receive Maximum", () => {
    const scenario = fc.constantFrom<ProtocolVersion>(4, 5).chain((version) =>
      fc.record({
        version: fc.constant(version),
        receiveMaximum: fc.integer({ min: 1, max: 3 }),
        maximumPacketSize: fc.constantFrom(100, 1000),
        auth: fc.boolean(),
        steps: fc.array(step(version), { maxLength: 40 }),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ version, receiveMaximum, maximumPacketSize, auth, steps }) => {
        const client = new TestClient(version, { topicAliasMaximum: 2, receiveMaximum: 2, maximumQoS: 2 });
        const properties =
          version === 5 ? { receiveMaximum, maximumPacketSize, topicAliasMaximum: 2, ...(auth ? { authenticationMethod: "M" } : {}) } : {};
        const limit = version === 5 ? receiveMaximum : 65_535;
        const all: Action[] = [...client.connect({ properties })];
        const outstanding = new Set<number>();
        let acked = false;
        let closed = all.some((a) => a.kind === "close");
        for (const s of steps) {
          run(client, s);
          const actions = client.drain();
          if (closed) expect(actions).toEqual([]);
          const closeAt = actions.findIndex((a) => a.kind === "close");
          if (closeAt >= 0) {
            expect(closeAt).toBe(actions.length - 1);
            closed = true;
          }
          for (const a of actions) {
            // Nothing but AUTH precedes a successful CONNACK [MQTT-3.2.0-1].
            if (a.kind === "send" && !acked) {
              expect(["connack", "auth"]).toContain(a.packet.type);
              acked = a.packet.type === "connack" && a.packet.reasonCode === 0;
            }
            if (a.kind === "send" && a.packet.type === "publish" && a.packet.packetId !== undefined) outstanding.add(a.packet.packetId);
            if (a.kind === "effect" && (a.effect.kind === "delivery-acked" || a.effect.kind === "delivery-completed" || a.effect.kind === "delivery-rejected")) {
              outstanding.delete(a.effect.packetId);
            }
          }
          expect(outstanding.size).toBeLessThanOrEqual(limit);
          expect(client.conn.outboundInFlight).toBeLessThanOrEqual(limit);
          all.push(...actions);
        }
        expect(all.filter((a) => a.kind === "close").length).toBeLessThanOrEqual(1);
        expect(all.filter((a) => a.kind === "effect" && a.effect.kind === "closed").length).toBe(closed ? 1 : 0);
      }),
      { numRuns: 500 },
    );
  });
});
