import { describe, expect, it } from "vitest";
import { BrokerCounters } from "../mqtt/counters.js";
import { createBrokerMetrics } from "./broker-metrics.js";
import type { RouterSource } from "./router-source.js";

function router(): RouterSource & { stats: { dropped: Record<string, number>; published: number } } {
  return {
    stats: {
      published: 0,
      sent: 0,
      queued: 0,
      unmatched: 0,
      dropped: { "queue-full": 0, "stale-plan": 0 },
      willsPublished: 0,
      sessionsExpired: 0,
      takeovers: 0,
    },
    sessionCount: 0,
    subscriptionCount: 0,
    retainedCount: 0,
  };
}

describe("createBrokerMetrics", () => {
  it("samples the connection layer's counters at scrape time", async () => {
    const metrics = createBrokerMetrics({ processMetrics: false });
    const counters = new BrokerCounters();
    metrics.observeTraffic(counters);
    counters.connects += 1;
    counters.disconnected("keepalive-timeout");
    counters.received(1);
    for (let i = 0; i < 3; i++) counters.sent(2);
    counters.bytesReceived += 100;
    counters.authFailed(0x86);
    const text = await metrics.registry.metrics();
    expect(text).toContain("handoff_broker_connects_total 1");
    expect(text).toContain('handoff_broker_disconnects_total{reason="keepalive-timeout"} 1');
    expect(text).toContain('handoff_broker_messages_received_total{qos="1"} 1');
    expect(text).toContain('handoff_broker_messages_sent_total{qos="2"} 3');
    expect(text).toContain("handoff_broker_bytes_received_total 100");
    expect(text).toContain('handoff_broker_auth_failures_total{reason="bad-credentials"} 1');
  });

  it("samples the router's counters and sizes at scrape time", async () => {
    const metrics = createBrokerMetrics({ processMetrics: false });
    const source = router();
    metrics.observeRouter(source);
    source.stats.published = 7;
    source.stats.dropped["queue-full"] = 2;
    Object.assign(source, { sessionCount: 3, subscriptionCount: 4, retainedCount: 5 });
    Object.assign(source.stats, { takeovers: 1, willsPublished: 6 });
    const text = await metrics.registry.metrics();
    for (const line of [
      "handoff_broker_messages_routed_total 7",
      'handoff_broker_messages_dropped_total{reason="queue-full"} 2',
      'handoff_broker_messages_dropped_total{reason="stale-plan"} 0',
      "handoff_broker_sessions 3",
      "handoff_broker_subscriptions 4",
      "handoff_broker_retained_messages 5",
      "handoff_broker_takeovers_total 1",
      "handoff_broker_wills_published_total 6",
    ]) {
      expect(text).toContain(line);
    }
  });

  it("follows the router's counters from one scrape to the next", async () => {
    const metrics = createBrokerMetrics({ processMetrics: false });
    const source = router();
    metrics.observeRouter(source);
    source.stats.published = 1;
    await metrics.registry.metrics();
    source.stats.published = 5;
    expect(await metrics.registry.metrics()).toContain("handoff_broker_messages_routed_total 5");
  });

  it("samples the connection count from a callback", async () => {
    const metrics = createBrokerMetrics({ processMetrics: false });
    metrics.observeConnections(() => 12);
    expect(await metrics.registry.metrics()).toContain("handoff_broker_connections 12");
  });

  it("includes the default process metrics unless turned off", async () => {
    const [on, off] = [createBrokerMetrics(), createBrokerMetrics({ processMetrics: false })];
    expect([(await on.registry.metrics()).includes("process_cpu_user_seconds_total"), (await off.registry.metrics()).includes("process_cpu")]).toEqual([true, false]);
  });

  it("keeps two instances apart", async () => {
    const a = createBrokerMetrics({ processMetrics: false });
    const b = createBrokerMetrics({ processMetrics: false });
    const counters = new BrokerCounters();
    counters.connects = 4;
    a.observeTraffic(counters);
    expect(await b.registry.metrics()).toContain("handoff_broker_connects_total 0");
  });

  it("gives $SYS the same totals as the scrape, summed over their labels", async () => {
    const metrics = createBrokerMetrics({ processMetrics: false });
    const counters = new BrokerCounters();
    metrics.observeTraffic(counters);
    metrics.observeConnections(() => 2);
    counters.received(0);
    counters.received(0);
    for (let i = 0; i < 3; i++) counters.received(1);
    counters.authFailed(0x86);
    counters.authFailed(0x87);
    expect(metrics.totals()).toMatchObject({ messagesReceived: 5, connections: 2, authFailures: 2 });
    const text = await metrics.registry.metrics();
    expect(text).toContain('handoff_broker_messages_received_total{qos="0"} 2');
    expect(text).toContain('handoff_broker_auth_failures_total{reason="not-authorized"} 1');
  });
});
