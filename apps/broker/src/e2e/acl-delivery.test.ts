// ACLs at delivery, over real sockets with MQTT.js: overlapping wildcard subscriptions are granted
// and never receive a denied topic; Will topics pass the publish ACL; a SIGHUP reload applies to
// existing subscriptions.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collect, until } from "./harness.test-helpers.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const fx = serverFixture();
const { start, connect } = fx;

const aclFlags = (d: string): string[] => ["--acl-file", join(d, "acl")];
const urlOf = (port: number | undefined): string => `mqtt://127.0.0.1:${String(port ?? 0)}`;

describe("ACLs at delivery", () => {
  it("grants # and +/+ beside a denied topic and never delivers it, while the denied filter itself is refused", async () => {
    const s = await start(aclFlags, { acl: "topic readwrite #\ndeny topic read test/nosubscribe\n" });
    const url = urlOf(s.ports.mqtt);
    const v5 = await connect(url, { clientId: "v5" });
    const v4 = await connect(url, { clientId: "v4", protocolVersion: 4 });
    expect((await v5.subscribeAsync(["#", "+/+"], { qos: 1 })).map((g) => g.qos)).toEqual([1, 1]);
    expect((await v4.subscribeAsync("#", { qos: 1 })).map((g) => g.qos)).toEqual([1]);
    await expect(v5.subscribeAsync("test/nosubscribe", { qos: 1 })).rejects.toMatchObject({ packet: { granted: [0x87] } });
    const refused = await v4.subscribeAsync("test/nosubscribe", { qos: 1 }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ packet: { granted: [0x80] } });

    const pub = await connect(url, { clientId: "pub" });
    await pub.publishAsync("test/nosubscribe", "denied", { qos: 1 });
    await pub.publishAsync("test/ok", "allowed", { qos: 1 });
    await until(() => collect(v5).length >= 1 && collect(v4).length >= 1);
    await pub.publishAsync("test/ok", "fence", { qos: 1 }); // everything before it has been routed
    await until(() => collect(v5).filter((m) => m.payload === "fence").length === 1 && collect(v4).some((m) => m.payload === "fence"));
    // One copy per message even with two overlapping filters, none for the denied topic.
    expect(collect(v5).map((m) => m.topic)).toEqual(["test/ok", "test/ok"]);
    expect(collect(v4).map((m) => m.topic)).toEqual(["test/ok", "test/ok"]);
  });

  it("keeps %c patterns, nested denies and $SYS rules under per-message checks", async () => {
    const acl = "topic read $SYS/broker/version\npattern readwrite devices/%c/#\ndeny pattern read devices/%c/private/#\ntopic write devices/#\n";
    const s = await start(aclFlags, { acl });
    const url = urlOf(s.ports.mqtt);
    const dev = await connect(url, { clientId: "dev1" });
    expect((await dev.subscribeAsync(["devices/+/#", "$SYS/broker/+"], { qos: 0 })).map((g) => g.qos)).toEqual([0, 0]);
    await expect(dev.subscribeAsync("devices/dev1/private/#", { qos: 0 })).rejects.toMatchObject({ packet: { granted: [0x87] } });
    const pub = await connect(url, { clientId: "pub" });
    for (const topic of ["devices/dev2/state", "devices/dev1/private/key", "devices/dev1/state"]) await pub.publishAsync(topic, topic, { qos: 1 });
    await until(() => collect(dev).some((m) => m.topic === "devices/dev1/state"));
    await until(() => collect(dev).some((m) => m.topic === "$SYS/broker/version"));
    const topics = collect(dev).map((m) => m.topic);
    expect(topics.filter((t) => t.startsWith("devices/"))).toEqual(["devices/dev1/state"]);
    expect(topics.filter((t) => t.startsWith("$SYS/"))).toEqual(["$SYS/broker/version"]);
  });

  it("stops existing subscriptions receiving a topic denied by a reload", async () => {
    const s = await start(aclFlags, { acl: "topic readwrite #\n" });
    const url = urlOf(s.ports.mqtt);
    const sub = await connect(url, { clientId: "sub" });
    await sub.subscribeAsync("news/#", { qos: 1 });
    const pub = await connect(url, { clientId: "pub" });
    await pub.publishAsync("news/secret", "before", { qos: 1 });
    await until(() => collect(sub).length === 1);
    writeFileSync(join(fx.dir ?? "", "acl"), "topic readwrite #\ndeny topic read news/secret\n");
    await s.reload();
    await pub.publishAsync("news/secret", "after", { qos: 1 });
    await pub.publishAsync("news/open", "still", { qos: 1 });
    await until(() => collect(sub).length === 2);
    expect(collect(sub).map((m) => m.payload)).toEqual(["before", "still"]);
  });

  it("refuses a Will on a topic the client may not publish: CONNACK 0x87 (v5) and 5 (3.1.1)", async () => {
    const s = await start(aclFlags, { acl: "topic readwrite public/#\n" });
    const url = urlOf(s.ports.mqtt);
    const will = { topic: "$SYS/broker/version", payload: Buffer.from("owned"), qos: 1 as const, retain: true };
    await expect(connect(url, { clientId: "w5", will })).rejects.toMatchObject({ code: 0x87 });
    await expect(connect(url, { clientId: "w4", protocolVersion: 4, will: { ...will, topic: "private/x" } })).rejects.toMatchObject({ code: 5 });
    const ok = await connect(url, { clientId: "ok", will: { ...will, topic: "public/last-words" } });
    expect(ok.connected).toBe(true);
  });
});
