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

/** A connection that ended after its CONNACK. */
export interface DisconnectInfo {
  readonly clientId: string;
  /** Why it ended (`client-disconnect`, `keep-alive`, `protocol-error`, `takeover`…). */
  readonly cause: string;
  readonly reasonCode: number | undefined;
}

/** What the broker tells an embedding service about its connections (each optional). */
export interface ConnectionEvents {
  /** A CONNECT was accepted (its CONNACK is on its way). */
  connected?(info: ConnectionInfo): void;
  /** An accepted connection ended. */
  disconnected?(info: DisconnectInfo): void;
}
