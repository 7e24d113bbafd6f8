/**
 * How the router hands deliveries to the connection that owns a session. The app implements it
 * over the protocol state machine; tests implement it with an array.
 * @module
 */
import type { QoS } from "../codec/packet.js";
import type { MessageProperties } from "./message.js";

/** A PUBLISH the connection should send. */
export interface OutboundPublish {
  /** The resolved topic; a connection may replace it with a Topic Alias on the wire. */
  readonly topic: string;
  /** The message body, shared with the other subscribers' copies: do not change it. */
  readonly payload: Uint8Array;
  /** The delivery's QoS (already lowered to the granted QoS). */
  readonly qos: QoS;
  /** RETAIN as this subscriber should see it. */
  readonly retain: boolean;
  /** True on a resend after reconnect [MQTT-3.3.1-1]; always false for QoS 0. */
  readonly dup: boolean;
  /** Present exactly when qos > 0; reused unchanged on a resend [MQTT-4.4.0-1]. */
  readonly packetId?: number;
  /** The message's properties plus the per-delivery ones the connection encodes. */
  readonly properties: MessageProperties & {
    /** The interval left, in seconds [MQTT-3.3.2-6]. */
    readonly messageExpiryInterval?: number;
    readonly subscriptionIdentifiers?: readonly number[];
  };
}

/** The connection side of delivery. */
export interface DeliverySink {
  /**
   * Sends a PUBLISH. Returns false if the connection discarded it (e.g. larger than the client's
   * Maximum Packet Size [MQTT-3.1.2-25]); the router then counts it dropped and frees its id.
   */
  publish(publish: OutboundPublish): boolean;
  /** Resends a PUBREL for a QoS 2 delivery the client already acknowledged with PUBREC. */
  pubrel(packetId: number): void;
}
