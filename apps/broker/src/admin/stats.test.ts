import { Router } from "@handoff/mqtt-router";
import { ManualClock } from "@handoff/seqlog";
import { describe, expect, it } from "vitest";
import { createBrokerMetrics, sysSnapshot, sysTopics } from "../metrics/index.js";
import { BrokerCounters } from "../mqtt/counters.js";
import { statsJson } from "./stats.js";

function busyBroker() {
  const clock = new ManualClock(5000);
  const router = new Router({ clock, queueLimits: { maxCount: 1 } });
  const counters = new BrokerCounters();
  const metrics = createBrokerMetrics({ processMetrics: false });
  metrics.observeRouter(router);
  metrics.observeTraffic(counters);
  metrics.observeConnections(() => 2);
  const sink = { publish: () => true, pubrel: () => undefined };
  const a = router.connect({ clientId: "a", cleanStart: true, sessionExpiryInterval: 60, receiveMaximum: 1, protocolVersion: 5, sink });
  router.bind("a", a.generation);
  router.subscribe("a", a.generation, [{ filter: "t", qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0 }]);
  for (let i = 0; i < 3; i++) {
    counters.received(1);
    router.publish({ topic: "t", payload: new Uint8Array([i]), qos: 1, retain: i === 0, properties: {} });
  }
  counters.sent(1);
  return { clock, router, counters, metrics };
}

describe("statsJson", () => {
  it("reads the numbers $SYS publishes, plus queue totals and the WebSocket endpoint", () => {
    const { clock, router, metrics } = busyBroker();
    const stats = statsJson({ router, totals: () => metrics.totals(), now: () => clock.now(), uptimeSeconds: () => 12.7, version: "handoff 9", websocket: { port: 8080, path: "/mqtt" } });
    const sys = Object.fromEntries(sysTopics(sysSnapshot(router, metrics.totals()), { version: "handoff 9", uptimeSeconds: 12 }).map((m) => [m.topic.replace("$SYS/broker/", ""), m.payload]));
    expect(stats).toEqual({
      at: 5000,
      uptimeSeconds: 12,
      version: "handoff 9",
      connections: Number(sys["clients/connected"]),
      sessions: Number(sys["clients/total"]),
      subscriptions: Number(sys["subscriptions/count"]),
      retained: Number(sys["retained messages/count"]),
      messages: { received: Number(sys["messages/received"]), sent: Number(sys["messages/sent"]), routed: 3 },
      bytes: { received: 0, sent: 0 },
      queued: 0,
      inflight: 1,
      dropped: { total: Number(sys["messages/dropped"]), byReason: expect.objectContaining({ evicted: Number(sys["messages/dropped/evicted"]) }) as Record<string, number> },
      websocket: { port: 8080, path: "/mqtt" },
    });
    expect([stats.connections, stats.messages.received, stats.dropped.total]).toEqual([2, 3, 2]);
  });

  it("agrees with /metrics on messages received and dropped", async () => {
    const { clock, router, metrics } = busyBroker();
    const stats = statsJson({ router, totals: () => metrics.totals(), now: () => clock.now(), uptimeSeconds: () => 0, version: "v" });
    const text = await metrics.registry.metrics();
    expect([text.includes(`handoff_broker_messages_received_total{qos="1"} ${String(stats.messages.received)}`), text.includes(`handoff_broker_messages_dropped_total{reason="evicted"} ${String(stats.dropped.byReason["evicted"])}`), stats.websocket]).toEqual([true, true, null]);
  });
});
