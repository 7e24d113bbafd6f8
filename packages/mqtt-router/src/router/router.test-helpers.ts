// Test-only helpers for the router's tests; the apps' tests get some of them from the
// workspace-only `@handoff/mqtt-router/testing` (never from the published entries).
import { ManualClock } from "@handoff/seqlog";
import type { QoS } from "../codec/packet.js";
import type { Message } from "./message.js";
import { Router } from "./router.js";
import type { RouterOptions } from "./router-options.js";
import type { ConnectRequest } from "./takeover.js";
import type { DeliverySink, OutboundPublish } from "./sink.js";

/** A sink that records what the router sent, and can be told to refuse. */
export interface RecordingSink extends DeliverySink {
  readonly sent: OutboundPublish[];
  readonly pubrels: number[];
  /** Payloads as strings, in send order. */
  payloads(): string[];
  refuse: boolean;
}

export function recordingSink(): RecordingSink {
  const sent: OutboundPublish[] = [];
  const pubrels: number[] = [];
  const sink: RecordingSink = {
    sent,
    pubrels,
    refuse: false,
    publish(publish) {
      if (sink.refuse) return false;
      sent.push(publish);
      return true;
    },
    pubrel(packetId) {
      pubrels.push(packetId);
    },
    payloads: () => sent.map((p) => new TextDecoder().decode(p.payload)),
  };
  return sink;
}

export function message(topic: string, payload: string, qos: QoS = 1, extra: Partial<Message> = {}): Message {
  return { topic, payload: new TextEncoder().encode(payload), qos, retain: false, properties: {}, ...extra };
}

export function newRouter(options: Partial<RouterOptions> = {}): { router: Router; clock: ManualClock } {
  const clock = new ManualClock(1_000_000);
  return { router: new Router({ clock, ...options }), clock };
}

/** Connects and binds a client in one step; returns its generation and sink. */
export function online(
  router: Router,
  clientId: string,
  request: Partial<Omit<ConnectRequest, "clientId" | "sink">> = {},
): { generation: number; sink: RecordingSink; sessionPresent: boolean } {
  const sink = recordingSink();
  const outcome = router.connect({
    clientId,
    cleanStart: false,
    sessionExpiryInterval: 3600,
    receiveMaximum: 10,
    protocolVersion: 5,
    sink,
    ...request,
  });
  router.bind(clientId, outcome.generation);
  return { generation: outcome.generation, sink, sessionPresent: outcome.sessionPresent };
}

export const sub = (filter: string, qos: QoS = 1, extra: Partial<{ noLocal: boolean; retainAsPublished: boolean; retainHandling: 0 | 1 | 2 }> = {}) => ({
  filter,
  qos,
  noLocal: false,
  retainAsPublished: false,
  retainHandling: 0 as const,
  ...extra,
});
