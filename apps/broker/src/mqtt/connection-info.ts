/**
 * What an operator sees of one accepted MQTT connection (the admin API's client list).
 * @module
 */
import type { ProtocolVersion } from "@handoff/mqtt-router";

/** An accepted connection, as of its CONNACK. */
export interface ConnectionInfo {
  /** The client id of the session it holds. */
  readonly clientId: string;
  /** The authenticated user name; absent for an anonymous client. */
  readonly username?: string;
  /** `host:port` of the peer. */
  readonly remote: string;
  /** The listener that accepted it. */
  readonly listener: "tcp" | "tls" | "ws" | "wss";
  /** 3 (MQTT 3.1), 4 (3.1.1) or 5. */
  readonly protocolVersion: ProtocolVersion;
  /** When the CONNECT was accepted (the broker clock, ms). */
  readonly connectedAt: number;
  /** The keep alive in force, seconds (the client's, or the one the server imposed). */
  readonly keepAlive: number;
  /** Whether it started a new session (Clean Start / Clean Session) rather than resuming one. */
  readonly cleanStart: boolean;
}

/** A connection that ended after its CONNACK. */
export interface DisconnectInfo {
  /** The client id of the session it held. */
  readonly clientId: string;
  /** Why it ended (`client-disconnect`, `keep-alive`, `protocol-error`, `takeover`…). */
  readonly cause: string;
  /** The DISCONNECT's reason code (the client's or the server's), if one was sent. */
  readonly reasonCode: number | undefined;
}

/** What the broker tells an embedding service about its connections (each optional). */
export interface ConnectionEvents {
  /** A CONNECT was accepted (its CONNACK is on its way). */
  connected?(info: ConnectionInfo): void;
  /** An accepted connection ended. */
  disconnected?(info: DisconnectInfo): void;
}
