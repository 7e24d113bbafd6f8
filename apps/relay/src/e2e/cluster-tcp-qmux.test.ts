// The qmux version on plain-TCP relay links, which have no ALPN: the listener reads it from the
// dialer's first bytes, the dialer speaks qmux-02 (or `?qmux=NN`) and follows the peer's answer:
// qmux-01 for a peer without reset_stream_at (the reference relay's fixed choice), a redial over
// qmux-00 for a relay from before qmux-01 over TCP. Hostile first bytes are refused.
import { createServer as createTcpServer, connect as tcpConnect, type Socket } from "node:net";
import { Writable } from "node:stream";
import { LITE_06 } from "@handoff/moq-resume/lite";
import { createFraming, type FramingEvent, type QmuxVersion } from "@handoff/qmux";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { startRelay, type Relay } from "../server/relay.js";
import { clusterRelay, expectContiguous, publisher, routable, subscriber, tcpUrl } from "./cluster-harness.test-helpers.js";
import { e2eSetup, probeUntil, testRelay, until, within } from "./harness.test-helpers.js";
import { connectNet, liveTrack, net, netPublisher } from "./net-harness.test-helpers.js";

const cleanup = e2eSetup();

/** Runs a bare framing over a TCP socket (another relay's end), collecting its events. */
function rawEnd(socket: Socket, version: QmuxVersion, role: "client" | "server"): FramingEvent[] {
  const framing = createFraming(version, { role, carrier: "stream", autoConsume: true, params: { applicationProtocols: ["moq-lite-06"] } });
  const events: FramingEvent[] = [];
  const flush = (): void => {
    for (const e of framing.poll()) {
      if (e.kind === "send") socket.write(e.bytes);
      else events.push(e);
    }
  };
  socket.on("data", (chunk: Buffer) => {
    framing.receive(new Uint8Array(chunk));
    flush();
  });
  socket.on("error", () => socket.destroy());
  // As every qmux end does: our parameters at once, before reading the peer's.
  flush();
  return events;
}

/** A listener like a relay that speaks only `version` on TCP (an old handoff relay: qmux-00; the reference: qmux-01). */
async function fixedListener(version: QmuxVersion) {
  const accepted: FramingEvent[][] = [];
  const server = createTcpServer((socket) => {
    cleanup.push(() => socket.destroy());
    accepted.push(rawEnd(socket, version, "server"));
  });
  cleanup.push(() => server.close());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { accepted, url: `tcp://127.0.0.1:${String(typeof address === "object" && address !== null ? address.port : 0)}` };
}

/** Sessions of `relay` as [qmux, moq-lite] pairs. */
const versions = (relay: Relay) => [...relay.sessions].map((s) => [s.qmuxVersion, s.version]);

/** Frames written at `origin` reach a subscriber at `edge`. */
async function framesCross(origin: Relay, edge: Relay): Promise<void> {
  const start = publisher(cleanup, origin);
  await routable(edge, "the broadcast reached the edge");
  const received = await subscriber(cleanup, edge);
  const pub = await start;
  pub.groups(0, 2, 3);
  await until(() => received.count() === 6, 5000, () => received.summary());
  expectContiguous(received, 0, 2, 3);
}

/** A @moq/net datagram published at `ingest` reaches a subscriber at `edge`. */
async function datagramCrosses(ingest: Relay, edge: Relay): Promise<void> {
  const Moq = await net();
  const offer = "qmux-02.moq-lite-06-wip";
  const pub = await netPublisher(await connectNet(cleanup, ingest.ports.http, "anon", offer), "dgram", { timescale: 48_000 });
  await until(() => edge.origin.routes("anon/dgram").length > 0, 4000, "broadcast routable at the edge");
  const sub = (await connectNet(cleanup, edge.ports.http, "anon", offer)).consume("dgram").subscribe("audio");
  await within(sub.info(), 4000, "track info");
  const track = await liveTrack(pub);
  const got: string[] = [];
  void (async () => {
    for (;;) {
      const datagram = await sub.recvDatagram();
      if (!datagram) return;
      got.push(new TextDecoder().decode(datagram.payload));
    }
  })();
  // Datagrams sent before the subscription reached the ingest are dropped: probe until one lands.
  let probe = 0;
  await probeUntil(() => track.appendDatagram(new Moq.Time.Timestamp(probe++, 48_000), new TextEncoder().encode("probe")), () => got.length > 0, "probe datagrams");
  expect(got).toContain("probe");
}

describe("qmux version on plain-TCP relay links", () => {
  for (const [query, expected] of [
    ["", "qmux-02"],
    ["?qmux=02", "qmux-02"],
    ["?qmux=01", "qmux-01"],
    ["?qmux=00", "qmux-00"],
  ] as const) {
    it(`links over ${expected} when dialed ${query === "" ? "by default" : `with ${query}`}, and frames cross`, async () => {
      const hub = await testRelay(cleanup);
      const edge = await clusterRelay(cleanup, [`${tcpUrl(hub)}${query}`]);
      await until(() => hub.sessions.size === 1 && edge.sessions.size === 1 && [...hub.sessions, ...edge.sessions].every((s) => s.version !== undefined), 5000, "link up");
      expect([versions(hub), versions(edge)]).toEqual([[[expected, LITE_06]], [[expected, LITE_06]]]);
      await framesCross(hub, edge);
      // qmux-01/02 carry datagrams across the link; qmux-00 turns them into one-frame groups.
      if (expected !== "qmux-00") await datagramCrosses(edge, hub);
    });
  }

  it("redials a relay that speaks only qmux-00 over qmux-00, at once", async () => {
    const old = await fixedListener("qmux-00");
    const edge = await clusterRelay(cleanup, [old.url]);
    await until(() => old.accepted.some((events) => events.some((e) => e.kind === "ready")), 5000, "the old relay read our qmux-00 parameters");
    // The first connection offered records and was refused; the second linked.
    expect(old.accepted.length).toBe(2);
    await until(() => [...edge.sessions].some((s) => s.version !== undefined), 5000, "link up");
    expect(versions(edge)).toEqual([["qmux-00", LITE_06]]);
  });

  it("dials the reference relay's fixed qmux-01 and settles on it", async () => {
    const upstream = await fixedListener("qmux-01");
    const edge = await clusterRelay(cleanup, [upstream.url]);
    await until(() => [...edge.sessions].some((s) => s.version !== undefined), 5000, "link up");
    expect(upstream.accepted.length).toBe(1);
    expect(upstream.accepted[0]?.some((e) => e.kind === "ready")).toBe(true);
    expect(versions(edge)).toEqual([["qmux-01", LITE_06]]);
  });

  it("accepts qmux-00, -01 and -02 dialers as they speak", async () => {
    const hub = await testRelay(cleanup);
    for (const version of ["qmux-00", "qmux-01", "qmux-02"] as const) {
      const socket = tcpConnect(hub.ports.tcp ?? 0, "127.0.0.1");
      cleanup.push(() => socket.destroy());
      await within(new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject)), 2000, "tcp connect");
      const events = rawEnd(socket, version, "client");
      await until(() => events.some((e) => e.kind === "ready"), 2000, `${version} parameters from the relay`);
      await until(() => [...hub.sessions].filter((s) => s.version !== undefined).length === 1, 2000, "session up");
      expect(versions(hub)).toEqual([[version, LITE_06]]);
      socket.destroy();
      await until(() => hub.sessions.size === 0, 2000, "session closed");
    }
  });

  it("refuses garbage and a slowloris first byte with a log line, and a bystander link carries on", async () => {
    const lines: { msg?: string; reason?: string }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString().split("\n")) if (line !== "") lines.push(JSON.parse(line) as { msg?: string; reason?: string });
        callback();
      },
    });
    const hub = await startRelay(
      { host: "127.0.0.1", port: 0, tcpPort: 0, metricsPort: undefined, auth: { key: undefined, publicPublish: [], publicSubscribe: [] }, tcpAccess: "trusted", limits: {}, closeGraceMs: 200, tcpSniffTimeoutMs: 300 },
      pino({ level: "info" }, sink),
    );
    cleanup.push(() => hub.close());
    const edge = await clusterRelay(cleanup, [tcpUrl(hub)]);
    await until(() => hub.sessions.size === 1 && edge.sessions.size === 1 && [...edge.sessions].every((s) => s.version !== undefined), 5000, "bystander link up");
    const hostile = async (bytes: Uint8Array): Promise<void> => {
      const socket = tcpConnect(hub.ports.tcp ?? 0, "127.0.0.1");
      cleanup.push(() => socket.destroy());
      socket.on("error", () => undefined);
      const closed = new Promise((resolve) => socket.once("close", resolve));
      socket.write(bytes);
      await within(closed, 3000, "the relay closed the hostile socket");
    };
    await hostile(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    await hostile(Uint8Array.of(0xff));
    const refused = lines.filter((l) => l.msg === "connection refused").map((l) => l.reason ?? "");
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatch(/^not qmux \(no QX_TRANSPORT_PARAMETERS first\): first bytes 47 45 54 20/);
    expect(refused[1]).toBe("no qmux transport parameters within 300 ms (1 bytes)");
    expect(hub.sessions.size).toBe(1);
    await framesCross(hub, edge);
  });
});
