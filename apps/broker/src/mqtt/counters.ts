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
}
