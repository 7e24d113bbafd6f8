// The qmux version on relay links over TLS: named by the TLS ALPN (`qmux-02.moq-lite-06`), the
// newest both relays speak, with datagrams crossing qmux-02 links, and a bare moq ALPN (qmux-00)
// for relays from before qmux-01 over TCP, in both directions.
import { readFileSync } from "node:fs";
import { connect as tlsConnect, createServer as createTlsServer, type TLSSocket } from "node:tls";
import { fileURLToPath } from "node:url";
import { LITE_06 } from "@handoff/moq-resume/lite";
import { createFraming, type FramingEvent, type FramingSession } from "@handoff/qmux";
import { describe, expect, it } from "vitest";
import { e2eSetup, probeUntil, testRelay, until, within } from "./harness.test-helpers.js";
import { connectNet, liveTrack, net, netPublisher } from "./net-harness.test-helpers.js";

const cleanup = e2eSetup();
const fixture = (name: string): Buffer => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)));
const cert = fixture("localhost-cert.pem");
const key = fixture("localhost-key.pem");
const timing = { minBackoffMs: 50, maxBackoffMs: 500 };

/** Runs a qmux-00 framing over a TLS socket (an old relay's end), collecting its events. */
function qmux00(socket: TLSSocket, role: "client" | "server"): { framing: FramingSession; events: FramingEvent[] } {
  const framing = createFraming("qmux-00", { role, carrier: "stream", autoConsume: true, params: { applicationProtocols: ["moq-lite-06"] } });
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
  flush();
  return { framing, events };
}

describe("qmux version on TLS relay links", () => {
  it("links over qmux-02 and carries datagrams across two TLS links", async () => {
    const Moq = await net();
    const hub = await testRelay(cleanup, undefined, { tls: { cert, key } });
    const peer = [`tls://127.0.0.1:${String(hub.ports.tcp)}`];
    const ingest = await testRelay(cleanup, undefined, { cluster: { peers: peer, ca: cert, timing } });
    const edge = await testRelay(cleanup, undefined, { cluster: { peers: peer, ca: cert, timing } });
    await until(() => hub.sessions.size === 2 && [...hub.sessions].every((s) => s.version !== undefined), 5000, "both links up");
    // Both ends of both links: qmux-02 (the ALPN's first part) and lite-06 (its second).
    for (const relay of [hub, ingest, edge]) {
      expect([...relay.sessions].map((s) => [s.qmuxVersion, s.version])).toEqual(relay === hub ? [["qmux-02", LITE_06], ["qmux-02", LITE_06]] : [["qmux-02", LITE_06]]);
    }
    // @moq/net 0.3 speaks 06-wip at most; the links still run lite-06.
    const offer = "qmux-02.moq-lite-06-wip";
    const pub = await netPublisher(await connectNet(cleanup, ingest.ports.http, "anon", offer), "live", { timescale: 48_000 });
    await until(() => edge.origin.routes("anon/live").length > 0, 4000, "broadcast routable at the edge");
    const sub = (await connectNet(cleanup, edge.ports.http, "anon", offer)).consume("live").subscribe("audio");
    await within(sub.info(), 4000, "track info");
    const track = await liveTrack(pub);
    const got: string[] = [];
    const reading = (async () => {
      while (!got.includes("last")) {
        const datagram = await sub.recvDatagram();
        if (!datagram) return;
        got.push(new TextDecoder().decode(datagram.payload));
      }
    })();
    // Datagrams sent before the subscription reached the ingest are dropped: probe until one lands.
    await probeUntil(() => track.appendDatagram(new Moq.Time.Timestamp(0, 48_000), new TextEncoder().encode("probe")), () => got.length > 0, "probe datagrams");
    track.appendDatagram(new Moq.Time.Timestamp(960, 48_000), new TextEncoder().encode("last"));
    await within(reading, 4000, "a datagram through two relay links");
    expect(got.at(-1)).toBe("last");
  });

  it("accepts a relay that offers only bare moq ALPNs (qmux-00)", async () => {
    const hub = await testRelay(cleanup, undefined, { tls: { cert, key } });
    const socket = tlsConnect({ host: "127.0.0.1", port: hub.ports.tcp ?? 0, ca: cert, servername: "localhost", ALPNProtocols: ["moq-lite-06"] });
    cleanup.push(() => socket.destroy());
    await within(new Promise((resolve, reject) => socket.once("secureConnect", resolve).once("error", reject)), 2000, "tls connect");
    expect(socket.alpnProtocol).toBe("moq-lite-06");
    const old = qmux00(socket, "client");
    await until(() => old.events.some((e) => e.kind === "ready"), 2000, "qmux-00 transport parameters");
    await until(() => [...hub.sessions].some((s) => s.version !== undefined), 2000, "session up");
    expect([...hub.sessions].map((s) => [s.qmuxVersion, s.version])).toEqual([["qmux-00", LITE_06]]);
  });

  it("dials a relay that accepts only bare moq ALPNs, and links over qmux-00", async () => {
    const accepted: { alpn: string | false | null; events: FramingEvent[] }[] = [];
    const server = createTlsServer({ cert, key, ALPNProtocols: ["moq-lite-06", "moq-lite-05", "moq-lite-04"] }, (socket) => {
      accepted.push({ alpn: socket.alpnProtocol, events: qmux00(socket, "server").events });
    });
    cleanup.push(() => server.close());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const edge = await testRelay(cleanup, undefined, { cluster: { peers: [`tls://127.0.0.1:${String(port)}`], ca: cert, timing } });
    await until(() => accepted.some((a) => a.events.some((e) => e.kind === "ready")), 5000, "the old relay read our qmux-00 parameters");
    expect(accepted[0]?.alpn).toBe("moq-lite-06");
    await until(() => [...edge.sessions].some((s) => s.version !== undefined), 5000, "link up");
    expect([...edge.sessions].map((s) => [s.qmuxVersion, s.version])).toEqual([["qmux-00", LITE_06]]);
    for (const socketEnd of edge.sessions) socketEnd.close(0, "done");
  });
});
