// The broker's traffic counters from a real client's traffic: /metrics and $SYS read the same
// numbers (connects, bytes, messages by QoS, disconnects, auth failures).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashPassword } from "../auth/index.js";
import { collect, until } from "./harness.test-helpers.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const fx = serverFixture();

function sample(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
}

describe("traffic metrics", () => {
  it("count connects, bytes, messages, disconnects and auth failures, the same in /metrics and $SYS", async () => {
    const hash = await hashPassword("s3cret");
    const s = await fx.start((d) => ["--password-file", join(d, "passwords")], { passwords: `alice:${hash}\n` });
    const url = `mqtt://127.0.0.1:${String(s.ports.mqtt ?? 0)}`;
    await expect(fx.connect(url, { username: "alice", password: "wrong" })).rejects.toMatchObject({ code: 0x86 });
    const sub = await fx.connect(url, { clientId: "sub", username: "alice", password: "s3cret" });
    await sub.subscribeAsync("t", { qos: 1 });
    const pub = await fx.connect(url, { clientId: "pub", protocolVersion: 4, username: "alice", password: "s3cret" });
    for (let i = 0; i < 5; i++) await pub.publishAsync("t", `q1-${String(i)}`, { qos: 1 });
    for (let i = 0; i < 2; i++) await pub.publishAsync("t", `q0-${String(i)}`, { qos: 0 });
    await until(() => collect(sub).length === 7);
    await pub.endAsync();
    await until(() => s.broker.connections === 1);

    const text = await (await fetch(`http://127.0.0.1:${String(s.ports.http ?? 0)}/metrics`)).text();
    expect(sample(text, "handoff_broker_connects_total")).toBe(2);
    expect(sample(text, 'handoff_broker_messages_received_total{qos="1"}')).toBe(5);
    expect(sample(text, 'handoff_broker_messages_received_total{qos="0"}')).toBe(2);
    expect(sample(text, 'handoff_broker_messages_sent_total{qos="1"}')).toBe(5);
    expect(sample(text, 'handoff_broker_messages_sent_total{qos="0"}')).toBe(2);
    expect(sample(text, 'handoff_broker_disconnects_total{reason="client-disconnect"}')).toBe(1);
    expect(sample(text, 'handoff_broker_auth_failures_total{reason="bad-credentials"}')).toBe(1);
    const bytesIn = sample(text, "handoff_broker_bytes_received_total");
    const bytesOut = sample(text, "handoff_broker_bytes_sent_total");
    expect(bytesIn).toBeGreaterThan(7 * 5); // at least the PUBLISH payloads
    expect(bytesOut).toBeGreaterThan(7 * 5);

    s.publishSys();
    const watcher = await fx.connect(url, { clientId: "watcher", username: "alice", password: "s3cret" });
    await watcher.subscribeAsync(["$SYS/broker/messages/received", "$SYS/broker/messages/sent", "$SYS/broker/bytes/received"], { qos: 0 });
    await until(() => collect(watcher).length === 3);
    const sys = new Map(collect(watcher).map((m) => [m.topic, Number(m.payload)]));
    expect(sys.get("$SYS/broker/messages/received")).toBe(7);
    expect(sys.get("$SYS/broker/messages/sent")).toBe(7);
    expect(sys.get("$SYS/broker/bytes/received")).toBe(bytesIn);
  });
});
