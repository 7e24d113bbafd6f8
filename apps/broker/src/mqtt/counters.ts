/**
 * Connection-level counters the broker keeps beside the router's own (`router.stats`): plain
 * numbers, cheap on the hot path, and the one source both `/metrics` and `$SYS` read.
 * @module
 */
import { ReasonCode, type QoS } from "@handoff/mqtt-router";

/** Why a CONNECT was refused by authentication, as a metric label. */
export type AuthFailure = "bad-credentials" | "not-authorized" | "bad-method" | "other";

/** Traffic and connection counters. */
export class BrokerCounters {
  /** Transports attached (before any CONNECT). */
  connectionsTotal = 0;
  connectionsOpen = 0;
  /** CONNECTs accepted (CONNACK 0). */
  connects = 0;
  connectsRefused = 0;
  /** PUBLISH packets received from clients, by QoS. */
  readonly messagesReceived: [number, number, number] = [0, 0, 0];
  /** PUBLISH packets handed to client connections, by QoS (resends included). */
  readonly messagesSent: [number, number, number] = [0, 0, 0];
  bytesReceived = 0;
  bytesSent = 0;
  publishesDenied = 0;
  /** QoS 1/2 publishes refused with 0x97 while the store could not take more. */
  publishesRefusedStorage = 0;
  subscriptionsDenied = 0;
  protocolErrors = 0;
  /** Errors that escaped a connection's handler; each closed that connection only. */
  handlerErrors = 0;
  /** How often each limit refused something, by limit name (e.g. `topic-levels`). */
  readonly limitsExceeded: Record<string, number> = {};
  /** Connections ended, by cause (`client-disconnect`, `keepalive-timeout`, `protocol-error`, ...). */
  readonly disconnects = new Map<string, number>();
  /** CONNECTs refused by authentication or authorisation, by reason. */
  readonly authFailures = new Map<AuthFailure, number>();

  /** Counts one refusal by `limit`. */
  limitExceeded(limit: string): void {
    this.limitsExceeded[limit] = (this.limitsExceeded[limit] ?? 0) + 1;
  }
  /** Clients dropped because their unsent output passed the buffer cap. */
  slowClientsDropped = 0;
  /** Subscribers disconnected for holding publishers back past the stall budget. */
  stalledSubscribersDisconnected = 0;

  /** Counts one PUBLISH received. */
  received(qos: QoS): void {
    this.messagesReceived[qos] += 1;
  }

  /** Counts one PUBLISH sent. */
  sent(qos: QoS): void {
    this.messagesSent[qos] += 1;
  }

  /** Counts a connection's end. */
  disconnected(cause: string): void {
    this.disconnects.set(cause, (this.disconnects.get(cause) ?? 0) + 1);
  }

  /** Counts a CONNECT refused by authentication, from its MQTT 5 CONNACK reason code. */
  authFailed(reasonCode: number): void {
    const reason: AuthFailure =
      reasonCode === ReasonCode.BadUserNameOrPassword
        ? "bad-credentials"
        : reasonCode === ReasonCode.NotAuthorized
          ? "not-authorized"
          : reasonCode === ReasonCode.BadAuthenticationMethod
            ? "bad-method"
            : "other";
    this.authFailures.set(reason, (this.authFailures.get(reason) ?? 0) + 1);
  }
}
