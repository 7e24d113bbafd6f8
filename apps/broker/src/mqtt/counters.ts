/**
 * Connection-level counters the broker keeps beside the router's own (`router.stats`).
 * @module
 */

/** Traffic and connection counters. */
export class BrokerCounters {
  connectionsTotal = 0;
  connectionsOpen = 0;
  connectsRefused = 0;
  messagesReceived = 0;
  bytesReceived = 0;
  bytesSent = 0;
  publishesDenied = 0;
  subscriptionsDenied = 0;
  protocolErrors = 0;
  /** Errors that escaped a connection's handler; each closed that connection only. */
  handlerErrors = 0;
  /** How often each limit refused something, by limit name (e.g. `topic-levels`). */
  readonly limitsExceeded: Record<string, number> = {};

  /** Counts one refusal by `limit`. */
  limitExceeded(limit: string): void {
    this.limitsExceeded[limit] = (this.limitsExceeded[limit] ?? 0) + 1;
  }
  /** Clients dropped because their unsent output passed the buffer cap. */
  slowClientsDropped = 0;
  /** Subscribers disconnected for holding publishers back past the stall budget. */
  stalledSubscribersDisconnected = 0;
}
