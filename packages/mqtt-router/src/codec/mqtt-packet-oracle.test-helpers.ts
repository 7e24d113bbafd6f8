// Maps between our packets and mqtt-packet's objects, so mqtt-packet can serve as an independent
// oracle in oracle.test.ts. Test-only (not *.test.ts, so vitest does not collect it).
//
// mqtt-packet is an oracle for valid packets only: it is much laxer on invalid ones. Checked
// against malformed.test.ts (2026-11), its parser accepts 44 of the 70 rows, among them
// non-minimal remaining lengths, ill-formed UTF-8 and U+0000, wildcards in topic names, invalid
// filters, packet id 0, empty SUBSCRIBE/UNSUBSCRIBE, duplicate and misplaced properties,
// out-of-range property values, trailing bytes and DUP on QoS 0. Malformed input is therefore
// tested against the spec (the table), never against mqtt-packet.
import * as mqtt from "mqtt-packet";
import type { Packet, ProtocolVersion, PublishPacket } from "./packet.js";
import { propertiesLength, PropertyContext } from "./properties.js";
import type { Properties, UserProperty } from "./property-types.js";

type Bag = Record<string, unknown>;

/**
 * mqtt-packet keeps User Properties in an object (name -> value or values), which loses the order
 * between different names. Our form is grouped the same way before comparing: by name in the
 * order an object lists its keys (integer-like names such as "0" first, ascending, then the others
 * in order of first appearance), values in order.
 */
export function groupUserProperties(pairs: readonly UserProperty[]): UserProperty[] {
  // An object, not a Map: its key order is the one mqtt-packet's object hands back.
  const byName: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [k, v] of pairs) (byName[k] ??= []).push(v);
  return Object.entries(byName).flatMap(([k, vs]) => vs.map((v): UserProperty => [k, v]));
}

function normalizeProps(p: Properties): Properties {
  return p.userProperties === undefined ? p : { ...p, userProperties: groupUserProperties(p.userProperties) };
}

/** Our packet with user properties grouped as mqtt-packet can represent them. */
export function normalizeForOracle(p: Packet): Packet {
  if (p.type === "pingreq" || p.type === "pingresp") return p;
  if (p.type === "connect") {
    return {
      ...p,
      properties: normalizeProps(p.properties),
      ...(p.will === undefined ? {} : { will: { ...p.will, properties: normalizeProps(p.will.properties) } }),
    };
  }
  return { ...p, properties: normalizeProps(p.properties) };
}

function buf(b: Uint8Array): Buffer {
  return Buffer.from(b.buffer, b.byteOffset, b.length);
}

function toTheirProps(p: Properties): Bag | undefined {
  const out: Bag = {};
  for (const [k, v] of Object.entries(p)) {
    if (v === undefined) continue;
    if (k === "userProperties") {
      const o: Record<string, string | string[]> = {};
      for (const [name, value] of v as UserProperty[]) {
        const prev = o[name];
        o[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
      }
      out[k] = o;
    } else if (k === "payloadFormatIndicator") {
      out[k] = v === 1;
    } else if (k === "subscriptionIdentifiers") {
      const ids = v as number[];
      out["subscriptionIdentifier"] = ids.length === 1 ? ids[0] : ids;
    } else if (v instanceof Uint8Array) {
      out[k] = buf(v);
    } else {
      out[k] = v;
    }
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function withProps(o: Bag, p: Properties): Bag {
  const props = toTheirProps(p);
  return props === undefined ? o : { ...o, properties: props };
}

/** Our packet as an mqtt-packet object, for `mqtt.generate`. */
export function toOracle(p: Packet, version: ProtocolVersion): mqtt.Packet {
  const v5 = version === 5;
  let o: Bag;
  switch (p.type) {
    case "connect":
      o = withProps(
        {
          cmd: "connect",
          protocolId: p.protocolVersion === 3 ? "MQIsdp" : "MQTT",
          protocolVersion: p.protocolVersion,
          clean: p.cleanStart,
          keepalive: p.keepAlive,
          clientId: p.clientId,
          ...(p.username === undefined ? {} : { username: p.username }),
          ...(p.password === undefined ? {} : { password: buf(p.password) }),
          ...(p.will === undefined
            ? {}
            : { will: withProps({ topic: p.will.topic, payload: buf(p.will.payload), qos: p.will.qos, retain: p.will.retain }, p.will.properties) }),
        },
        p.properties,
      );
      break;
    case "connack":
      o = withProps({ cmd: "connack", sessionPresent: p.sessionPresent, [v5 ? "reasonCode" : "returnCode"]: p.reasonCode }, p.properties);
      break;
    case "publish":
      o = withProps(
        { cmd: "publish", topic: p.topic, payload: buf(p.payload), qos: p.qos, dup: p.dup, retain: p.retain, ...(p.packetId === undefined ? {} : { messageId: p.packetId }) },
        p.properties,
      );
      break;
    case "puback":
    case "pubrec":
    case "pubrel":
    case "pubcomp":
      o = withProps({ cmd: p.type, messageId: p.packetId, reasonCode: p.reasonCode }, p.properties);
      break;
    case "subscribe":
      o = withProps(
        {
          cmd: "subscribe",
          messageId: p.packetId,
          subscriptions: p.subscriptions.map((s) =>
            v5 ? { topic: s.topicFilter, qos: s.qos, nl: s.noLocal, rap: s.retainAsPublished, rh: s.retainHandling } : { topic: s.topicFilter, qos: s.qos },
          ),
        },
        p.properties,
      );
      break;
    case "suback":
      o = withProps({ cmd: "suback", messageId: p.packetId, granted: [...p.reasonCodes] }, p.properties);
      break;
    case "unsubscribe":
      o = withProps({ cmd: "unsubscribe", messageId: p.packetId, unsubscriptions: [...p.topicFilters] }, p.properties);
      break;
    case "unsuback":
      o = withProps({ cmd: "unsuback", messageId: p.packetId, granted: [...p.reasonCodes] }, p.properties);
      break;
    case "pingreq":
    case "pingresp":
      o = { cmd: p.type };
      break;
    case "disconnect":
    case "auth":
      o = withProps({ cmd: p.type, reasonCode: p.reasonCode }, p.properties);
      break;
    default: {
      const unreachable: never = p;
      throw new Error(`unknown packet ${String(unreachable)}`);
    }
  }
  return o as unknown as mqtt.Packet;
}

function fromTheirProps(raw: unknown, publish: boolean): Properties {
  if (raw === undefined || raw === null) return {};
  const out: Bag = {};
  for (const [k, v] of Object.entries(raw as Bag)) {
    if (k === "userProperties") {
      out[k] = Object.entries(v as Record<string, string | string[]>).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value]).map((x): UserProperty => [name, x]),
      );
    } else if (k === "payloadFormatIndicator") {
      out[k] = v === true ? 1 : 0;
    } else if (k === "subscriptionIdentifier" && publish) {
      out["subscriptionIdentifiers"] = Array.isArray(v) ? v : [v];
    } else if (v instanceof Uint8Array) {
      out[k] = new Uint8Array(v);
    } else {
      out[k] = v;
    }
  }
  return out;
}

function bytesOf(v: unknown): Uint8Array {
  if (typeof v === "string") return new Uint8Array(Buffer.from(v));
  return new Uint8Array(v as Uint8Array);
}

/** An mqtt-packet object as our packet. */
export function fromOracle(o: mqtt.Packet, version: ProtocolVersion): Packet {
  const b = o as unknown as Bag;
  const props = (publish = false): Properties => fromTheirProps(b["properties"], publish);
  const num = (k: string, dflt = 0): number => (typeof b[k] === "number" ? (b[k]) : dflt);
  switch (o.cmd) {
    case "connect": {
      const will = b["will"] as Bag | undefined | null;
      return {
        type: "connect",
        protocolVersion: num("protocolVersion") as 3 | 4 | 5,
        cleanStart: b["clean"] === true,
        keepAlive: num("keepalive"),
        clientId: b["clientId"] as string,
        ...(will === undefined || will === null
          ? {}
          : {
              will: {
                topic: will["topic"] as string,
                payload: bytesOf(will["payload"]),
                qos: (will["qos"] ?? 0) as 0 | 1 | 2,
                retain: will["retain"] === true,
                properties: fromTheirProps(will["properties"], false),
              },
            }),
        ...(typeof b["username"] === "string" ? { username: b["username"] } : {}),
        ...(b["password"] === undefined ? {} : { password: bytesOf(b["password"]) }),
        properties: props(),
      };
    }
    case "connack":
      return { type: "connack", sessionPresent: b["sessionPresent"] === true, reasonCode: num(version === 5 ? "reasonCode" : "returnCode"), properties: props() };
    case "publish": {
      const base = { type: "publish", retain: b["retain"] === true, topic: b["topic"] as string, payload: bytesOf(b["payload"]), properties: props(true) } as const;
      const qos = num("qos") as 0 | 1 | 2;
      const p: PublishPacket = qos === 0 ? { ...base, qos: 0, dup: false } : { ...base, qos, dup: b["dup"] === true, packetId: num("messageId") };
      return p;
    }
    case "puback":
    case "pubrec":
    case "pubrel":
    case "pubcomp":
      return { type: o.cmd, packetId: num("messageId"), reasonCode: num("reasonCode"), properties: props() };
    case "subscribe":
      return {
        type: "subscribe",
        packetId: num("messageId"),
        subscriptions: (b["subscriptions"] as Bag[]).map((s) => ({
          topicFilter: s["topic"] as string,
          qos: s["qos"] as 0 | 1 | 2,
          noLocal: s["nl"] === true,
          retainAsPublished: s["rap"] === true,
          retainHandling: (s["rh"] ?? 0) as 0 | 1 | 2,
        })),
        properties: props(),
      };
    case "suback":
      return { type: "suback", packetId: num("messageId"), reasonCodes: b["granted"] as number[], properties: props() };
    case "unsubscribe":
      return { type: "unsubscribe", packetId: num("messageId"), topicFilters: b["unsubscriptions"] as string[], properties: props() };
    case "unsuback":
      return { type: "unsuback", packetId: num("messageId"), reasonCodes: (b["granted"] ?? []) as number[], properties: props() };
    case "pingreq":
    case "pingresp":
      return { type: o.cmd };
    case "disconnect":
    case "auth":
      return { type: o.cmd, reasonCode: num("reasonCode"), properties: props() };
  }
}

/** Parses `bytes` with mqtt-packet; throws what its parser reports. */
export function oracleParse(bytes: Uint8Array, version: ProtocolVersion): mqtt.Packet[] {
  const parser = mqtt.parser({ protocolVersion: version });
  const out: mqtt.Packet[] = [];
  let failure: unknown;
  parser.on("packet", (p) => out.push(p));
  parser.on("error", (e: unknown) => {
    failure = e;
  });
  parser.parse(Buffer.from(bytes));
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error("mqtt-packet parser error", { cause: failure });
  return out;
}

/** Encodes with mqtt-packet. */
export function oracleGenerate(p: Packet, version: ProtocolVersion): Uint8Array {
  return new Uint8Array(mqtt.generate(toOracle(p, version), { protocolVersion: version }));
}

/**
 * Packets mqtt-packet's generator refuses although they are valid bytes, excluded from the
 * "they encode, we decode" direction:
 * - CONNECT with an empty client id and clean start 0: mqtt-packet refuses to write it (in 3.1.1
 *   the server answers it with return code 0x02; in MQTT 5 it is allowed). It is a session rule,
 *   not a wire rule, so our codec encodes and decodes it and leaves the decision to the protocol.
 * - MQTT 3.1 CONNECT with an empty client id (3.1 wants 1..23 characters): again a session rule.
 * - MQTT 5 CONNECT with a password but no username: mqtt-packet refuses it, but MQTT 5 allows it
 *   (3.1.2.9: only 3.1.1 required the username).
 */
export function oracleCanGenerate(p: Packet): boolean {
  if (p.type !== "connect") return true;
  if (p.clientId === "" && (!p.cleanStart || p.protocolVersion === 3)) return false;
  if (p.password !== undefined && p.username === undefined) return false;
  return true;
}

function userPropertiesOf(p: Packet): readonly (readonly UserProperty[])[] {
  if (p.type === "pingreq" || p.type === "pingresp") return [];
  if (p.type === "connect") return [p.properties.userProperties ?? [], p.will?.properties.userProperties ?? []];
  return [p.properties.userProperties ?? []];
}

/**
 * Packets mqtt-packet's parser gets wrong, excluded from the "we encode, they parse" direction:
 * - a User Property name repeated after an empty value: its parser tests the previous value for
 *   truthiness, so `("k", "")` followed by `("k", "x")` loses the first pair (parser.js,
 *   `if (result[name][currentUserProperty.name])`).
 * - an AUTH with reason Success and no properties: we send it with remaining length 0, as
 *   [MQTT-3.15.2-1] allows, and its parser reads a reason code byte past the end of the packet.
 */
export function oracleCanParse(p: Packet): boolean {
  if (p.type === "auth" && p.reasonCode === 0 && propertiesLength(p.properties, PropertyContext.Auth) === 0) return false;
  for (const list of userPropertiesOf(p)) {
    const seenEmpty = new Set<string>();
    for (const [k, v] of list) {
      if (seenEmpty.has(k)) return false;
      if (v === "") seenEmpty.add(k);
    }
  }
  return true;
}
