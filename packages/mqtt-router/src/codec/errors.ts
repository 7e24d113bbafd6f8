/** Reason codes a decoder or encoder error can carry (an MQTT 5 reason code, spec §2.4). */
export type CodecErrorCode =
  | 0x81 // Malformed Packet
  | 0x82 // Protocol Error
  | 0x84 // Unsupported Protocol Version (CONNECT only)
  | 0x8f // Topic Filter invalid
  | 0x90 // Topic Name invalid
  | 0x94 // Topic Alias invalid
  | 0x95; // Packet Too Large

/**
 * Base of the codec's errors: a short message plus the MQTT 5 reason code a server would put in
 * its CONNACK or DISCONNECT (for 3.1.1 connections the protocol layer just closes).
 */
export abstract class MqttCodecError extends Error {
  /** The MQTT 5 reason code that describes the failure. */
  readonly reasonCode: CodecErrorCode;

  /** @param reasonCode MQTT 5 reason code describing the failure @param message what was wrong */
  constructor(reasonCode: CodecErrorCode, message: string) {
    super(message);
    this.reasonCode = reasonCode;
  }
}

/** Bytes received from a peer are not a valid packet. Decoding stops at the first one. */
export class MqttDecodeError extends MqttCodecError {
  /** Set so logs and `err.name` checks tell a decode failure from an encode one. */
  override readonly name = "MqttDecodeError";
}

/** A packet given to an encoder cannot be written as valid MQTT (nothing was written). */
export class MqttEncodeError extends MqttCodecError {
  /** Set so logs and `err.name` checks tell an encode failure from a decode one. */
  override readonly name = "MqttEncodeError";
}

/** Shorthand for a Malformed Packet decode error. */
export function malformed(message: string): MqttDecodeError {
  return new MqttDecodeError(0x81, message);
}

/** Shorthand for a Protocol Error decode error. */
export function protocolError(message: string): MqttDecodeError {
  return new MqttDecodeError(0x82, message);
}

/** `text` quoted for an error message, cut to 64 characters so a hostile 64 KiB string stays out of logs. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}
