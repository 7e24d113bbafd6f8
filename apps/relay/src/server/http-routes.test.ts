import { ManualClock } from "@handoff/seqlog";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { Track } from "@handoff/moq-resume";
import type { RouteSource } from "@handoff/moq-relay";
import { startRelay, type Relay } from "./relay.js";

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

async function start(): Promise<Relay> {
  relay = await startRelay(
    { host: "127.0.0.1", port: 0, tcpPort: undefined, metricsPort: 0, auth: { key: undefined, publicPublish: [], publicSubscribe: [] }, tcpAccess: "trusted", limits: {} },
    pino({ level: "silent" }),
  );
  return relay;
}

function fakeSource(track: Track): RouteSource {
  return {
    id: 99,
    subscribeUpstream: (_path, _track, _priority, place) => {
      place(track);
      return { track, cancel: () => undefined, cap: () => undefined };
    },
  };
}

describe("HTTP endpoints", () => {
  it("answers /health with ok", async () => {
    const r = await start();
    const res = await fetch(`http://127.0.0.1:${String(r.ports.http)}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("lists announced broadcasts under a prefix", async () => {
    const r = await start();
    const source = fakeSource(new Track("video", { clock: new ManualClock() }));
    r.origin.announce("room/a", source, []);
    r.origin.announce("other/b", source, []);
    const res = await fetch(`http://127.0.0.1:${String(r.ports.http)}/announced/room`);
    expect(await res.json()).toEqual(["room/a"]);
  });

  it("serves a cached group's frames with varint lengths", async () => {
    const r = await start();
    const track = new Track("video", { clock: new ManualClock() });
    r.origin.announce("room/a", fakeSource(track), []);
    const sub = r.origin.subscribe("room/a", "video", 0, undefined);
    expect(sub.ok).toBe(true);
    const group = track.createGroup(3);
    group.write(Uint8Array.of(1, 2));
    group.write(Uint8Array.of(9));
    group.finish();
    const res = await fetch(`http://127.0.0.1:${String(r.ports.http)}/fetch/room/a/video?group=3`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-moq-frames")).toBe("2");
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([2, 1, 2, 1, 9]);
  });

  it("answers 404 for a group the relay does not hold", async () => {
    const r = await start();
    const res = await fetch(`http://127.0.0.1:${String(r.ports.http)}/fetch/room/a/video?group=1`);
    expect(res.status).toBe(404);
  });

  it("answers 404 for other plain HTTP paths", async () => {
    const r = await start();
    expect((await fetch(`http://127.0.0.1:${String(r.ports.http)}/nope`)).status).toBe(404);
  });

  it("serves Prometheus metrics on the metrics port", async () => {
    const r = await start();
    const res = await fetch(`http://127.0.0.1:${String(r.ports.metrics)}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/relay_sessions/);
  });
});
