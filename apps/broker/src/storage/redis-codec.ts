/**
 * Values of the Redis store: a message with what travels with it (delivery flags, will delay) as
 * one binary value — a 4-byte length, a JSON header, then the payload bytes unchanged — and
 * session records and subscriptions as JSON. Messages are stored inline with each delivery, will
 * and retained topic (no shared rows as in SQLite: nodes do not share reference counts).
 * @module
 */
import type { Assigned, Delivery, Message, QoS, SessionRecord, SessionSubscription } from "@handoff/mqtt-router";
import { blob, decodeProperties, encodeProperties, toQoS } from "./message-codec.js";

interface MessageHeader {
  t: string;
  q: QoS;
  r: boolean;
  p: string | null;
  e: number | null;
  o: string | null;
}

/** The header fields of a delivery value besides the message. */
interface DeliveryFields {
  dq: QoS;
  dr: boolean;
  s: number[];
}

function pack(header: object, payload: Uint8Array): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.byteLength);
  return Buffer.concat([length, json, blob(payload)]);
}

function unpack(value: Buffer): { readonly header: MessageHeader & Record<string, unknown>; readonly payload: Uint8Array } {
  const length = value.readUInt32BE(0);
  const header = JSON.parse(value.subarray(4, 4 + length).toString()) as MessageHeader & Record<string, unknown>;
  return { header, payload: new Uint8Array(value.subarray(4 + length)) };
}

function header(m: Message): MessageHeader {
  return { t: m.topic, q: m.qos, r: m.retain, p: encodeProperties(m.properties), e: m.expiresAt ?? null, o: m.origin ?? null };
}

function toMessage(h: MessageHeader, payload: Uint8Array): Message {
  return {
    topic: h.t,
    payload,
    qos: toQoS(h.q),
    retain: h.r,
    properties: decodeProperties(h.p),
    ...(h.e === null ? {} : { expiresAt: h.e }),
    ...(h.o === null ? {} : { origin: h.o }),
  };
}

/** A message alone (a retained value). */
export const encodeMessage = (m: Message): Buffer => pack(header(m), m.payload);

/** The message of {@link encodeMessage}. */
export function decodeMessage(value: Buffer): Message {
  const { header: h, payload } = unpack(value);
  return toMessage(h, payload);
}

/** A queued delivery. */
export function encodeDelivery(d: Delivery): Buffer {
  const fields: DeliveryFields = { dq: d.qos, dr: d.retain, s: [...d.subscriptionIds] };
  return pack({ ...header(d.message), ...fields }, d.message.payload);
}

/** The delivery of {@link encodeDelivery}. */
export function decodeDelivery(value: Buffer): Delivery {
  const { header: h, payload } = unpack(value);
  const fields = h as unknown as DeliveryFields;
  return { message: toMessage(h, payload), qos: toQoS(fields.dq), retain: fields.dr, subscriptionIds: fields.s };
}

/** A will with its delay. */
export const encodeWill = (will: { readonly message: Message; readonly delayMs: number }): Buffer => pack({ ...header(will.message), d: will.delayMs }, will.message.payload);

/** The will of {@link encodeWill}. */
export function decodeWill(value: Buffer): { readonly message: Message; readonly delayMs: number } {
  const { header: h, payload } = unpack(value);
  return { message: toMessage(h, payload), delayMs: Number(h["d"]) };
}

/** A session record (the client id is the hash field). */
export const encodeSession = (r: SessionRecord): string => JSON.stringify({ x: r.expiryInterval, g: r.generation, d: r.disconnectedAt ?? null });

/** The record of {@link encodeSession}. */
export function decodeSession(clientId: string, value: string): SessionRecord {
  const json = JSON.parse(value) as { x: number; g: number; d: number | null };
  return { clientId, expiryInterval: json.x, generation: json.g, disconnectedAt: json.d ?? undefined };
}

/** A subscription (JSON of the router's own shape). */
export const encodeSubscription = (s: SessionSubscription): string => JSON.stringify(s);

/** The subscription of {@link encodeSubscription}. */
export const decodeSubscription = (value: string): SessionSubscription => JSON.parse(value) as SessionSubscription;

/** A delivery's packet id and phase. */
export const encodeAssigned = (a: Assigned): string => `${String(a.packetId)} ${a.phase}`;

/** The packet id and phase of {@link encodeAssigned}; undefined for anything else. */
export function decodeAssigned(value: string): Assigned | undefined {
  const [id, phase] = value.split(" ");
  const packetId = Number(id);
  if (!Number.isInteger(packetId) || (phase !== "publish" && phase !== "pubrel")) return undefined;
  return { packetId, phase };
}
