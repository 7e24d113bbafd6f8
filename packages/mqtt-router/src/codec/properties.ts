import type { ByteReader } from "./byte-reader.js";
import { MAX_U16, MAX_U32, checkBinary, checkInt, stringByteLength, type ByteWriter } from "./byte-writer.js";
import { MqttDecodeError, MqttEncodeError, malformed, protocolError } from "./errors.js";
import type { Properties, UserProperty } from "./property-types.js";
import { MAX_VARINT, varintLength } from "./varint.js";

/** Where a property block sits; each property is allowed in some of these (spec §2.2.2.2). */
export const PropertyContext = {
  Connect: 1,
  Connack: 2,
  Publish: 4,
  Will: 8,
  /** PUBACK, PUBREC, PUBREL, PUBCOMP. */
  PubAck: 16,
  Subscribe: 32,
  Suback: 64,
  Unsubscribe: 128,
  Unsuback: 256,
  Disconnect: 512,
  Auth: 1024,
} as const;

/** One of the property block locations. */
export type PropertyContext = (typeof PropertyContext)[keyof typeof PropertyContext];

const C = PropertyContext;
const ACKS = C.PubAck | C.Suback | C.Unsuback | C.Connack | C.Disconnect | C.Auth;
const MESSAGE = C.Publish | C.Will;

/** Property identifier and the contexts that may carry it, by name. */
export const propertyInfo: Readonly<Record<keyof Properties, { readonly id: number; readonly contexts: number }>> = {
  payloadFormatIndicator: { id: 0x01, contexts: MESSAGE },
  messageExpiryInterval: { id: 0x02, contexts: MESSAGE },
  contentType: { id: 0x03, contexts: MESSAGE },
  responseTopic: { id: 0x08, contexts: MESSAGE },
  correlationData: { id: 0x09, contexts: MESSAGE },
  subscriptionIdentifiers: { id: 0x0b, contexts: C.Publish },
  subscriptionIdentifier: { id: 0x0b, contexts: C.Subscribe },
  sessionExpiryInterval: { id: 0x11, contexts: C.Connect | C.Connack | C.Disconnect },
  assignedClientIdentifier: { id: 0x12, contexts: C.Connack },
  serverKeepAlive: { id: 0x13, contexts: C.Connack },
  authenticationMethod: { id: 0x15, contexts: C.Connect | C.Connack | C.Auth },
  authenticationData: { id: 0x16, contexts: C.Connect | C.Connack | C.Auth },
  requestProblemInformation: { id: 0x17, contexts: C.Connect },
  willDelayInterval: { id: 0x18, contexts: C.Will },
  requestResponseInformation: { id: 0x19, contexts: C.Connect },
  responseInformation: { id: 0x1a, contexts: C.Connack },
  serverReference: { id: 0x1c, contexts: C.Connack | C.Disconnect },
  reasonString: { id: 0x1f, contexts: ACKS },
  receiveMaximum: { id: 0x21, contexts: C.Connect | C.Connack },
  topicAliasMaximum: { id: 0x22, contexts: C.Connect | C.Connack },
  topicAlias: { id: 0x23, contexts: C.Publish },
  maximumQoS: { id: 0x24, contexts: C.Connack },
  retainAvailable: { id: 0x25, contexts: C.Connack },
  userProperties: { id: 0x26, contexts: ACKS | C.Connect | MESSAGE | C.Subscribe | C.Unsubscribe },
  maximumPacketSize: { id: 0x27, contexts: C.Connect | C.Connack },
  wildcardSubscriptionAvailable: { id: 0x28, contexts: C.Connack },
  subscriptionIdentifiersAvailable: { id: 0x29, contexts: C.Connack },
  sharedSubscriptionAvailable: { id: 0x2a, contexts: C.Connack },
};

// Allowed-context mask by identifier, for the decoder.
const allowedById = new Map<number, number>();
for (const info of Object.values(propertyInfo)) {
  allowedById.set(info.id, (allowedById.get(info.id) ?? 0) | info.contexts);
}

// Write order: by identifier, so equal property sets always encode to the same bytes.
const WRITE_ORDER = (Object.keys(propertyInfo) as (keyof Properties)[]).sort(
  (a, b) => propertyInfo[a].id - propertyInfo[b].id,
);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The empty property set, shared (decoded packets without properties point at it). */
export const NO_PROPERTIES: Properties = Object.freeze({});

function duplicate(name: string): MqttDecodeError {
  return protocolError(`duplicate property ${name}`);
}

function flag(r: ByteReader, name: string): boolean {
  const v = r.u8();
  if (v > 1) throw protocolError(`${name} must be 0 or 1`);
  return v === 1;
}

/**
 * Reads a property block (length prefix included) at the reader's position. Unknown identifiers
 * and properties that the packet type may not carry are Malformed Packet; duplicates and values
 * out of range are Protocol Error, as the spec states for each property.
 */
export function decodeProperties(r: ByteReader, ctx: PropertyContext): Properties {
  const len = r.varint();
  if (len === 0) return NO_PROPERTIES;
  const end = r.pos + len;
  if (end > r.end) throw malformed("property length exceeds packet");
  const outerEnd = r.end;
  r.end = end;
  const p: Mutable<Properties> = {};
  let userProperties: UserProperty[] | undefined;
  let subIds: number[] | undefined;
  while (r.pos < end) {
    const id = r.varint();
    const allowed = allowedById.get(id);
    if (allowed === undefined) throw malformed(`unknown property 0x${id.toString(16)}`);
    if ((allowed & ctx) === 0) throw malformed(`property 0x${id.toString(16)} not allowed in this packet`);
    switch (id) {
      case 0x01: {
        if (p.payloadFormatIndicator !== undefined) throw duplicate("Payload Format Indicator");
        p.payloadFormatIndicator = flag(r, "Payload Format Indicator") ? 1 : 0;
        break;
      }
      case 0x02:
        if (p.messageExpiryInterval !== undefined) throw duplicate("Message Expiry Interval");
        p.messageExpiryInterval = r.u32();
        break;
      case 0x03:
        if (p.contentType !== undefined) throw duplicate("Content Type");
        p.contentType = r.utf8();
        break;
      case 0x08: {
        if (p.responseTopic !== undefined) throw duplicate("Response Topic");
        const t = r.utf8();
        // The Response Topic is a Topic Name [MQTT-3.3.2-14].
        if (t.length === 0 || t.includes("+") || t.includes("#")) throw new MqttDecodeError(0x90, "Response Topic is not a valid topic name");
        p.responseTopic = t;
        break;
      }
      case 0x09:
        if (p.correlationData !== undefined) throw duplicate("Correlation Data");
        p.correlationData = r.binary();
        break;
      case 0x0b: {
        const v = r.varint();
        if (v === 0) throw protocolError("Subscription Identifier 0");
        if (ctx === C.Subscribe) {
          if (p.subscriptionIdentifier !== undefined) throw duplicate("Subscription Identifier");
          p.subscriptionIdentifier = v;
        } else {
          (subIds ??= []).push(v);
        }
        break;
      }
      case 0x11:
        if (p.sessionExpiryInterval !== undefined) throw duplicate("Session Expiry Interval");
        p.sessionExpiryInterval = r.u32();
        break;
      case 0x12:
        if (p.assignedClientIdentifier !== undefined) throw duplicate("Assigned Client Identifier");
        p.assignedClientIdentifier = r.utf8();
        break;
      case 0x13:
        if (p.serverKeepAlive !== undefined) throw duplicate("Server Keep Alive");
        p.serverKeepAlive = r.u16();
        break;
      case 0x15:
        if (p.authenticationMethod !== undefined) throw duplicate("Authentication Method");
        p.authenticationMethod = r.utf8();
        break;
      case 0x16:
        if (p.authenticationData !== undefined) throw duplicate("Authentication Data");
        p.authenticationData = r.binary();
        break;
      case 0x17:
        if (p.requestProblemInformation !== undefined) throw duplicate("Request Problem Information");
        p.requestProblemInformation = flag(r, "Request Problem Information");
        break;
      case 0x18:
        if (p.willDelayInterval !== undefined) throw duplicate("Will Delay Interval");
        p.willDelayInterval = r.u32();
        break;
      case 0x19:
        if (p.requestResponseInformation !== undefined) throw duplicate("Request Response Information");
        p.requestResponseInformation = flag(r, "Request Response Information");
        break;
      case 0x1a:
        if (p.responseInformation !== undefined) throw duplicate("Response Information");
        p.responseInformation = r.utf8();
        break;
      case 0x1c:
        if (p.serverReference !== undefined) throw duplicate("Server Reference");
        p.serverReference = r.utf8();
        break;
      case 0x1f:
        if (p.reasonString !== undefined) throw duplicate("Reason String");
        p.reasonString = r.utf8();
        break;
      case 0x21: {
        if (p.receiveMaximum !== undefined) throw duplicate("Receive Maximum");
        const v = r.u16();
        if (v === 0) throw protocolError("Receive Maximum 0");
        p.receiveMaximum = v;
        break;
      }
      case 0x22:
        if (p.topicAliasMaximum !== undefined) throw duplicate("Topic Alias Maximum");
        p.topicAliasMaximum = r.u16();
        break;
      case 0x23: {
        if (p.topicAlias !== undefined) throw duplicate("Topic Alias");
        const v = r.u16();
        if (v === 0) throw new MqttDecodeError(0x94, "Topic Alias 0");
        p.topicAlias = v;
        break;
      }
      case 0x24:
        if (p.maximumQoS !== undefined) throw duplicate("Maximum QoS");
        p.maximumQoS = flag(r, "Maximum QoS") ? 1 : 0;
        break;
      case 0x25:
        if (p.retainAvailable !== undefined) throw duplicate("Retain Available");
        p.retainAvailable = flag(r, "Retain Available");
        break;
      case 0x26: {
        const name = r.utf8();
        const value = r.utf8();
        (userProperties ??= []).push([name, value]);
        break;
      }
      case 0x27: {
        if (p.maximumPacketSize !== undefined) throw duplicate("Maximum Packet Size");
        const v = r.u32();
        if (v === 0) throw protocolError("Maximum Packet Size 0");
        p.maximumPacketSize = v;
        break;
      }
      case 0x28:
        if (p.wildcardSubscriptionAvailable !== undefined) throw duplicate("Wildcard Subscription Available");
        p.wildcardSubscriptionAvailable = flag(r, "Wildcard Subscription Available");
        break;
      case 0x29:
        if (p.subscriptionIdentifiersAvailable !== undefined) throw duplicate("Subscription Identifier Available");
        p.subscriptionIdentifiersAvailable = flag(r, "Subscription Identifier Available");
        break;
      case 0x2a:
        if (p.sharedSubscriptionAvailable !== undefined) throw duplicate("Shared Subscription Available");
        p.sharedSubscriptionAvailable = flag(r, "Shared Subscription Available");
        break;
      default:
        throw malformed(`unknown property 0x${id.toString(16)}`);
    }
  }
  // A value that ran past the block's end was caught by the reader's bound (r.end = end).
  r.end = outerEnd;
  if (userProperties !== undefined) p.userProperties = userProperties;
  if (subIds !== undefined) p.subscriptionIdentifiers = subIds;
  if (p.authenticationData !== undefined && p.authenticationMethod === undefined) {
    throw protocolError("Authentication Data without Authentication Method");
  }
  return p;
}

function notAllowed(key: string): MqttEncodeError {
  return new MqttEncodeError(0x81, `property ${key} is not allowed in this packet`);
}

function encodeFlag(v: unknown, key: string): void {
  if (typeof v !== "boolean" && v !== 0 && v !== 1) throw new MqttEncodeError(0x81, `${key} must be 0 or 1`);
}

/**
 * Measures a property block's content (without its length prefix), validating every value and
 * that each property may appear in `ctx`. Throws MqttEncodeError.
 */
export function propertiesLength(props: Properties, ctx: PropertyContext): number {
  let n = 0;
  for (const k in props) {
    const key = k as keyof Properties;
    const info = propertyInfo[key] as (typeof propertyInfo)[keyof Properties] | undefined;
    if (info === undefined) throw new MqttEncodeError(0x81, `unknown property ${k}`);
    const v = props[key];
    if (v === undefined) continue;
    if ((info.contexts & ctx) === 0) throw notAllowed(k);
    switch (key) {
      case "payloadFormatIndicator":
      case "requestProblemInformation":
      case "requestResponseInformation":
      case "maximumQoS":
      case "retainAvailable":
      case "wildcardSubscriptionAvailable":
      case "subscriptionIdentifiersAvailable":
      case "sharedSubscriptionAvailable":
        encodeFlag(v, k);
        n += 2;
        break;
      case "messageExpiryInterval":
      case "sessionExpiryInterval":
      case "willDelayInterval":
        checkInt(v as number, 0, MAX_U32, k);
        n += 5;
        break;
      case "maximumPacketSize":
        checkInt(v as number, 1, MAX_U32, k);
        n += 5;
        break;
      case "serverKeepAlive":
      case "topicAliasMaximum":
        checkInt(v as number, 0, MAX_U16, k);
        n += 3;
        break;
      case "receiveMaximum":
      case "topicAlias":
        checkInt(v as number, 1, MAX_U16, k);
        n += 3;
        break;
      case "contentType":
      case "assignedClientIdentifier":
      case "authenticationMethod":
      case "responseInformation":
      case "serverReference":
      case "reasonString":
        n += 3 + stringByteLength(v as string, k);
        break;
      case "responseTopic": {
        const t = v as string;
        if (t.length === 0 || t.includes("+") || t.includes("#")) throw new MqttEncodeError(0x90, "Response Topic is not a valid topic name");
        n += 3 + stringByteLength(t, k);
        break;
      }
      case "correlationData":
      case "authenticationData":
        checkBinary(v as Uint8Array, k);
        n += 3 + (v as Uint8Array).length;
        break;
      case "subscriptionIdentifier":
        checkInt(v as number, 1, MAX_VARINT, k);
        n += 1 + varintLength(v as number);
        break;
      case "subscriptionIdentifiers":
        for (const id of v as readonly number[]) {
          checkInt(id, 1, MAX_VARINT, k);
          n += 1 + varintLength(id);
        }
        break;
      case "userProperties":
        for (const [name, value] of v as readonly UserProperty[]) {
          n += 5 + stringByteLength(name, "user property name") + stringByteLength(value, "user property value");
        }
        break;
      default: {
        const unreachable: never = key;
        throw new MqttEncodeError(0x81, `unknown property ${String(unreachable)}`);
      }
    }
  }
  if (props.authenticationData !== undefined && props.authenticationMethod === undefined) {
    throw new MqttEncodeError(0x82, "Authentication Data without Authentication Method");
  }
  return n;
}

/** Writes a property block (length prefix included) measured by {@link propertiesLength}. */
export function writeProperties(w: ByteWriter, props: Properties, length: number): void {
  w.varint(length);
  if (length === 0) return;
  for (const key of WRITE_ORDER) {
    const k: string = key;
    const v = props[key];
    if (v === undefined) continue;
    const id = propertyInfo[key].id;
    switch (key) {
      case "payloadFormatIndicator":
      case "requestProblemInformation":
      case "requestResponseInformation":
      case "maximumQoS":
      case "retainAvailable":
      case "wildcardSubscriptionAvailable":
      case "subscriptionIdentifiersAvailable":
      case "sharedSubscriptionAvailable":
        w.u8(id);
        w.u8(v === true || v === 1 ? 1 : 0);
        break;
      case "messageExpiryInterval":
      case "sessionExpiryInterval":
      case "willDelayInterval":
      case "maximumPacketSize":
        w.u8(id);
        w.u32(v as number);
        break;
      case "serverKeepAlive":
      case "topicAliasMaximum":
      case "receiveMaximum":
      case "topicAlias":
        w.u8(id);
        w.u16(v as number);
        break;
      case "contentType":
      case "assignedClientIdentifier":
      case "authenticationMethod":
      case "responseInformation":
      case "serverReference":
      case "reasonString":
      case "responseTopic":
        w.u8(id);
        w.utf8(v as string, stringByteLength(v as string, k));
        break;
      case "correlationData":
      case "authenticationData":
        w.u8(id);
        w.binary(v as Uint8Array);
        break;
      case "subscriptionIdentifier":
        w.u8(id);
        w.varint(v as number);
        break;
      case "subscriptionIdentifiers":
        for (const sid of v as readonly number[]) {
          w.u8(id);
          w.varint(sid);
        }
        break;
      case "userProperties":
        for (const [name, value] of v as readonly UserProperty[]) {
          w.u8(id);
          w.utf8(name, stringByteLength(name, "user property name"));
          w.utf8(value, stringByteLength(value, "user property value"));
        }
        break;
      default: {
        const unreachable: never = key;
        throw new MqttEncodeError(0x81, `unknown property ${String(unreachable)}`);
      }
    }
  }
}
