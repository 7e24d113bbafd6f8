// The relay's byte budgets and session cap against a real relay process: what passes them gets
// the documented answer (evictions told to the readers, a 429 close, a 503), a log line and a
// counter, and the process keeps serving a bystander.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import * as Moq from "@moq/lite";
import { FrameEncoder, LITE_02, LITE_04, LiteStreamReader, LiteStreamWriter } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { bystanderRoundTrip } from "./bystander.test-helpers.js";
import { childRelay, getOnce, type ChildRelay } from "./child-relay.test-helpers.js";
import { connect, e2eSetup, until, within } from "./harness.test-helpers.js";
import { rawClient, rawSetup, rawTcpClient } from "./raw-client.test-helpers.js";
import { rawPublisher } from "./raw-publisher.test-helpers.js";

const cleanup = e2eSetup();

/** A relay process with `limits` from a config file, raw TCP and metrics ports. */
async function relayWith(limits: Record<string, number>): Promise<ChildRelay> {
  const dir = mkdtempSync(join(tmpdir(), "relay-limits-"));
  cleanup.push(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const file = join(dir, "relay.yaml");
  writeFileSync(file, `limits:\n${Object.entries(limits).map(([k, v]) => `  ${k}: ${String(v)}\n`).join("")}`);
  return childRelay(cleanup, ["--config", file, "--tcp-port", "0", "--metrics-port", "0"]);
}

async function metric(relay: ChildRelay, line: string): Promise<number> {
  const { text } = await getOnce(`http://127.0.0.1:${String(relay.ports.metrics ?? 0)}/metrics`);
  const found = text.split("\n").find((l) => l.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.slice(line.length + 1));
}

function tcpPort(relay: ChildRelay): number {
  if (relay.ports.tcp === undefined) throw new Error("no tcp port");
  return relay.ports.tcp;
}

describe("byte budgets and the session cap", () => {
  it("evicts the oldest groups of a copy past maxTrackBytes, resets them to a reader that had not got them (422), counts and logs it", async () => {
    const relay = await relayWith({ maxTrackBytes: 65_536 });
    const port = tcpPort(relay);
    const pub = await rawPublisher(cleanup, port, "cam");
    // One group stream at a time and little credit: the groups wait in the relay for this reader.
    const sub = await rawTcpClient(cleanup, port, "moq-lite-04", { initialMaxStreamsUni: 1, initialMaxData: 8192, initialMaxStreamDataUni: 8192 });
    const open = sub.framing.openStream(true);
    if (!open.ok) throw new Error("no stream");
    const writer = new LiteStreamWriter(LITE_04);
    sub.framing.write(
      open.streamId,
      writer.encodeAll([
        { type: "stream_header", kind: "subscribe" },
        { type: "subscribe", id: 3, broadcast: "cam", track: "video", priority: 0, ordered: true, maxLatency: 0, startGroup: undefined, endGroup: undefined },
      ]),
    );
    sub.flush();
    const id = await pub.subscribeId();
    sub.socket.pause();
    const groups = 20;
    for (let sequence = 0; sequence < groups; sequence++) pub.group(id, sequence, [new Uint8Array(20_000).fill(sequence)], true);
    await until(() => relay.logs.some((l) => l["msg"] === "byte budget: oldest groups evicted, their readers told"), 5000, "the eviction logged");
    expect(await metric(relay, 'relay_groups_evicted_total{budget="track"}')).toBeGreaterThan(0);
    sub.socket.resume();
    // Every group stream the reader gets ends whole (FIN) or reset with 422: none is silently cut.
    const settled = (): { whole: number; reset422: number; other: number } => {
      const uni = sub.events.flatMap((e) => (e.kind === "stream-opened" && !e.bidi ? [e.streamId] : []));
      let whole = 0;
      let reset422 = 0;
      let other = 0;
      for (const s of uni) {
        const reset = sub.events.find((e) => e.kind === "stream-reset" && e.streamId === s);
        if (reset?.kind === "stream-reset") {
          if (reset.code === 422) reset422 += 1;
          else other += 1;
        } else if (sub.events.some((e) => e.kind === "stream-data" && e.streamId === s && e.fin)) whole += 1;
      }
      return { whole, reset422, other };
    };
    await until(() => settled().whole + settled().reset422 + settled().other === groups, 10_000, () => `every group settled (${JSON.stringify(settled())})`);
    expect(settled().reset422).toBeGreaterThan(0);
    expect(settled().whole).toBeGreaterThan(0);
    expect(settled().other).toBe(0);
    expect(relay.alive()).toBe(true);
    expect(await bystanderRoundTrip(relay.ports.http)).toBe(true);
  });

  it("closes a legacy-framing publisher whose unfinished frames fill maxRelayBytes with 429, counts and logs it", async () => {
    const relay = await relayWith({ maxRelayBytes: 2 * 1024 * 1024 });
    const pub = await rawClient(cleanup, relay.ports.http);
    await rawSetup(pub);
    const writer = new LiteStreamWriter(LITE_02);
    await until(() => pub.events.some((e) => e.kind === "stream-opened" && e.bidi), 3000, "announce request");
    const asked = pub.events.find((e) => e.kind === "stream-opened" && e.bidi);
    if (asked?.kind !== "stream-opened") throw new Error("no announce request");
    pub.framing.write(asked.streamId, writer.encode({ type: "announce_init", suffixes: ["cam"] }));
    pub.flush();
    const viewer = await connect(relay.ports.http, "anon");
    cleanup.push(() => {
      viewer.close();
    });
    viewer.consume(Moq.Path.from("cam")).subscribe("video", 0);
    await until(() => pub.events.filter((e) => e.kind === "stream-opened" && e.bidi).length === 2, 3000, "upstream SUBSCRIBE");
    const upstream = pub.events.filter((e) => e.kind === "stream-opened" && e.bidi)[1];
    if (upstream?.kind !== "stream-opened") throw new Error("no SUBSCRIBE stream");
    await until(() => pub.events.some((e) => e.kind === "stream-data" && e.streamId === upstream.streamId), 3000, "SUBSCRIBE bytes");
    const reader = new LiteStreamReader({ role: "accepted-bidi", version: LITE_02 });
    for (const e of pub.events) if (e.kind === "stream-data" && e.streamId === upstream.streamId) reader.push(e.bytes);
    const request = reader.drain().messages.find((m) => m.type === "subscribe");
    if (request?.type !== "subscribe") throw new Error("no SUBSCRIBE");
    const closed = new Promise((resolve) => pub.ws.once("close", resolve));
    // 60 group streams, each a 1 MiB frame of which 60,000 bytes ever come: 3.6 MB held partial.
    const head = new FrameEncoder(LITE_02).header(1 << 20);
    for (let sequence = 0; sequence < 60 && pub.ws.readyState === WebSocket.OPEN; sequence++) {
      const r = pub.framing.openStream(false);
      if (!r.ok) throw new Error("no uni stream");
      const start = writer.encodeAll([
        { type: "stream_header", kind: "group" },
        { type: "group", subscribe: request.id, sequence },
      ]);
      pub.framing.write(r.streamId, Uint8Array.from([...start, ...head]));
      for (let sent = 0; sent < 60_000; sent += 15_000) pub.framing.write(r.streamId, new Uint8Array(15_000));
      pub.flush();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await within(closed, 5000, "the publisher closed");
    expect(pub.events.find((e) => e.kind === "closed")).toMatchObject({ code: 429, byPeer: true });
    await until(() => relay.logs.some((l) => l["msg"] === "relay byte budget full of a session's partial data: closing it (429)"), 3000, "logged");
    expect(await metric(relay, "relay_budget_closes_total")).toBe(1);
    expect(relay.alive()).toBe(true);
    expect(await bystanderRoundTrip(relay.ports.http)).toBe(true);
  });

  it("refuses a session past maxSessions with 503 on WebSocket and a qmux close 429 on TCP, and logs it", async () => {
    const relay = await relayWith({ maxSessions: 2 });
    const first = await rawClient(cleanup, relay.ports.http);
    const second = await rawClient(cleanup, relay.ports.http);
    const refused = new WebSocket(`ws://127.0.0.1:${String(relay.ports.http)}/anon`, ["webtransport"]);
    const status = await within(
      new Promise<number>((resolve) => {
        refused.once("unexpected-response", (_req, res) => {
          resolve(res.statusCode ?? 0);
        });
        refused.once("open", () => {
          resolve(101);
        });
      }),
      3000,
      "upgrade answer",
    );
    expect(status).toBe(503);
    const tcp = await rawTcpClient(cleanup, tcpPort(relay));
    await until(() => tcp.events.some((e) => e.kind === "closed"), 3000, "qmux close");
    expect(tcp.events.find((e) => e.kind === "closed")).toMatchObject({ code: 429, byPeer: true });
    // The relay is a child process: its log lines arrive on their own pipe, maybe after the close.
    await expect.poll(() => relay.logs.filter((l) => l["msg"] === "connection refused" && l["reason"] === "too many sessions").length, { timeout: WAIT_LIMIT_MS }).toBe(2);
    first.ws.close();
    second.ws.close();
    await expect.poll(() => metric(relay, "relay_sessions"), { timeout: WAIT_LIMIT_MS }).toBe(0);
    expect(relay.alive()).toBe(true);
    expect(await bystanderRoundTrip(relay.ports.http)).toBe(true);
  });
});
