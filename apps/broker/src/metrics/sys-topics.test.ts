import { describe, expect, it } from "vitest";
import { sysSnapshot, sysTopics, type SysSnapshot } from "./sys-topics.js";

const snapshot: SysSnapshot = {
  clientsConnected: 2,
  clientsTotal: 5,
  messagesReceived: 10,
  messagesSent: 20,
  bytesReceived: 300,
  bytesSent: 400,
  subscriptions: 6,
  retained: 1,
  dropped: { "queue-full": 3, expired: 1 },
};

describe("sysTopics", () => {
  it("lists every $SYS/broker topic with its payload", () => {
    const byTopic = Object.fromEntries(sysTopics(snapshot, { version: "handoff 0.1.0", uptimeSeconds: 42.7 }).map((m) => [m.topic, m.payload]));
    expect(byTopic).toEqual({
      "$SYS/broker/version": "handoff 0.1.0",
      "$SYS/broker/uptime": "42 seconds",
      "$SYS/broker/clients/connected": "2",
      "$SYS/broker/clients/total": "5",
      "$SYS/broker/messages/received": "10",
      "$SYS/broker/messages/sent": "20",
      "$SYS/broker/bytes/received": "300",
      "$SYS/broker/bytes/sent": "400",
      "$SYS/broker/subscriptions/count": "6",
      "$SYS/broker/retained messages/count": "1",
      "$SYS/broker/messages/dropped": "4",
      "$SYS/broker/messages/dropped/expired": "1",
      "$SYS/broker/messages/dropped/queue-full": "3",
    });
  });

  it("reports zero dropped messages when nothing was dropped", () => {
    const messages = sysTopics({ ...snapshot, dropped: {} }, { version: "v", uptimeSeconds: 0 });
    expect(messages.find((m) => m.topic === "$SYS/broker/messages/dropped")?.payload).toBe("0");
  });
});

describe("sysSnapshot", () => {
  it("takes sizes from the router and traffic from the metrics", () => {
    const router = {
      stats: { published: 0, sent: 0, queued: 0, unmatched: 0, dropped: { evicted: 2 }, willsPublished: 0, sessionsExpired: 0, takeovers: 0 },
      sessionCount: 9,
      subscriptionCount: 8,
      retainedCount: 7,
    };
    const totals = { connections: 1, connects: 4, messagesReceived: 2, messagesSent: 3, bytesReceived: 5, bytesSent: 6, authFailures: 0 };
    expect(sysSnapshot(router, totals)).toEqual({
      clientsConnected: 1,
      clientsTotal: 9,
      messagesReceived: 2,
      messagesSent: 3,
      bytesReceived: 5,
      bytesSent: 6,
      subscriptions: 8,
      retained: 7,
      dropped: { evicted: 2 },
    });
  });
});
