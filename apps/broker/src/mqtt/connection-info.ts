/**
 * What an operator sees of one accepted MQTT connection (the admin API's client list).
 * @module
 */
import type { ProtocolVersion } from "@handoff/mqtt-router";

/** An accepted connection, as of its CONNACK. */
export interface ConnectionInfo {
  readonly clientId: string;
  /** The authenticated user name; absent for an anonymous client. */
  readonly username?: string;
  /** `host:port` of the peer. */
  readonly remote: string;
  /** The listener that accepted it. */
  readonly listener: "tcp" | "tls" | "ws" | "wss";
  readonly protocolVersion: ProtocolVersion;
  /** When the CONNECT was accepted (the broker clock, ms). */
  readonly connectedAt: number;
  /** The keep alive in force, seconds (the client's, or the one the server imposed). */
  readonly keepAlive: number;
  readonly cleanStart: boolean;
}
