/**
 * Messages to and from their database row. Properties are JSON with binary correlation data as
 * base64; only the properties that travel with a message are kept (aliases never do).
 * @module
 */
import type { Message, MessageProperties, QoS } from "@handoff/mqtt-router";

/** A `messages` row as bound and read. */
export interface MessageRow {
  readonly topic: string;
  readonly payload: Uint8Array;
  readonly qos: number;
  readonly retain: number;
  readonly properties: string | null;
  readonly expires_at: number | null;
  readonly origin: string | null;
}

interface PropertiesJson {
  pf?: 0 | 1;
  ct?: string;
  rt?: string;
  cd?: string;
  up?: [string, string][];
}

/** The properties as stored; null when there are none. */
export function encodeProperties(p: MessageProperties): string | null {
  // Most messages carry none: no object built for them.
  if (p.payloadFormatIndicator === undefined && p.contentType === undefined && p.responseTopic === undefined && p.correlationData === undefined && p.userProperties === undefined) {
    return null;
  }
  const json: PropertiesJson = {};
  if (p.payloadFormatIndicator !== undefined) json.pf = p.payloadFormatIndicator;
  if (p.contentType !== undefined) json.ct = p.contentType;
  if (p.responseTopic !== undefined) json.rt = p.responseTopic;
  if (p.correlationData !== undefined) json.cd = Buffer.from(p.correlationData.buffer, p.correlationData.byteOffset, p.correlationData.byteLength).toString("base64");
  if (p.userProperties !== undefined) json.up = p.userProperties.map(([name, value]) => [name, value]);
  return JSON.stringify(json);
}

/** The properties back from their stored form. */
export function decodeProperties(text: string | null): MessageProperties {
  if (text === null) return {};
  const json = JSON.parse(text) as PropertiesJson;
  return {
    ...(json.pf === undefined ? {} : { payloadFormatIndicator: json.pf }),
    ...(json.ct === undefined ? {} : { contentType: json.ct }),
    ...(json.rt === undefined ? {} : { responseTopic: json.rt }),
    ...(json.cd === undefined ? {} : { correlationData: new Uint8Array(Buffer.from(json.cd, "base64")) }),
    ...(json.up === undefined ? {} : { userProperties: json.up.map(([name, value]) => [name, value] as const) }),
  };
}

/** A view of `bytes` as a Buffer, which is what the SQLite driver binds as a BLOB (no copy). */
export function blob(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The row for `message`; the payload is the message's own (the driver binds any Uint8Array). */
export function messageToRow(message: Message): MessageRow {
  return {
    topic: message.topic,
    payload: message.payload,
    qos: message.qos,
    retain: message.retain ? 1 : 0,
    properties: encodeProperties(message.properties),
    expires_at: message.expiresAt ?? null,
    origin: message.origin ?? null,
  };
}

/** The message of a row; the payload is copied out of the driver's buffer. */
export function rowToMessage(row: MessageRow): Message {
  return {
    topic: row.topic,
    payload: new Uint8Array(row.payload),
    qos: toQoS(row.qos),
    retain: row.retain !== 0,
    properties: decodeProperties(row.properties),
    ...(row.expires_at === null ? {} : { expiresAt: row.expires_at }),
    ...(row.origin === null ? {} : { origin: row.origin }),
  };
}

/** A stored QoS back as the union; anything else is damage, reported by the loader. */
export function toQoS(value: number): QoS {
  if (value === 0 || value === 1 || value === 2) return value;
  throw new RangeError(`stored QoS ${String(value)} is not 0, 1 or 2`);
}
