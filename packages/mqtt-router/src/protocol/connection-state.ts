/**
 * The phases of one MQTT connection and what each holds (see connection.ts, which moves between them).
 * @module
 */
import type { DecodeResult } from "../codec/decode.js";
import type { ProtocolVersion } from "../codec/packet.js";
import type { AuthExchange } from "./auth.js";
import type { ConnectRequestEffect } from "./effects.js";
import type { InboundFlow } from "./inbound-flow.js";
import type { ServerLimits } from "./options.js";
import type { OutboundFlow } from "./outbound-flow.js";
import type { SubscriptionRequests } from "./subscribe.js";

/** Where a connection is in its life. */
export type ConnectionPhase = "awaiting-connect" | "connecting" | "connected" | "closed";

/** CONNECT seen, verdict pending (possibly during an AUTH exchange). */
export interface Connecting {
  readonly phase: "connecting";
  readonly request: ConnectRequestEffect;
  readonly auth: AuthExchange;
  /** The client's own Session Expiry Interval (MQTT 5), to tell whether CONNACK must correct it. */
  readonly requestedExpiry: number | undefined;
}

/** CONNACK sent: the per-connection machinery of an accepted connection. */
export interface Connected {
  readonly phase: "connected";
  readonly request: ConnectRequestEffect;
  readonly version: ProtocolVersion;
  readonly auth: AuthExchange;
  readonly limits: ServerLimits;
  readonly inbound: InboundFlow;
  readonly outbound: OutboundFlow;
  readonly subscriptions: SubscriptionRequests;
  /** The Session Expiry Interval the CONNECT asked for (0 forbids raising it on DISCONNECT). */
  readonly connectExpiry: number;
  sessionExpiry: number;
}

export type State = { readonly phase: "awaiting-connect" } | Connecting | Connected | { readonly phase: "closed" };

/** A packet that arrived before CONNACK, with its size on the wire (for the input budget). */
export interface HeldPacket {
  readonly item: DecodeResult;
  readonly bytes: number;
}
