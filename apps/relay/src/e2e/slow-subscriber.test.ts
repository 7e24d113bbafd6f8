import * as Moq from "@moq/lite";
import WebSocket from "ws";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Relay } from "../server/relay.js";
import { connect, installPolyfills, testRelay, trackPublisher, until, within } from "./harness.test-helpers.js";

/** Every client WebSocket @moq/lite opens, so the test can stop one from reading. */
const clientSockets: WebSocket[] = [];

class RecordingWebSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args);
    clientSockets.push(this);
  }
}

beforeAll(() => {
  // Before the polyfills, which only fill a missing global.
  (globalThis as { WebSocket?: unknown }).WebSocket = RecordingWebSocket;
  installPolyfills();
  // @moq/lite logs every stream at debug/info/warn level.
  for (const level of ["debug", "log", "warn", "info", "error"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
});

let cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** Connects with lite-04 (qmux flow control) and returns the connection and its socket. */
async function client(r: Relay): Promise<{ conn: Moq.Connection.Established; socket: WebSocket }> {
  const before = clientSockets.length;
  const conn = await connect(r.ports.http, "anon", "lite-04");
  const socket = clientSockets[before];
  if (socket === undefined) throw new Error("no client socket recorded");
  cleanup.push(() => {
    // Deaf first: @moq/qmux 0.0.6 throws on stream data that arrives after its session closed, and
    // a paused socket still holds data the relay sent (ws emits it when the socket ends).
    socket.onmessage = null;
    socket.terminate();
    conn.close();
  });
  return { conn, socket };
}

/** A publisher whose tracks are driven by the test: the tracks the relay requested. */
function publisher(conn: Moq.Connection.Established, name: string): Moq.Track[] {
  return trackPublisher(conn, name).tracks;
}

const FRAME_BYTES = 1024;
const FRAMES = 4;
/** Well past what the slow peer can take: 100 uni streams granted plus 256 queued groups. */
const GROUPS = 512;
/** Groups published before waiting for the fast reader: below the 32-group cache. */
const BURST = 16;

/** Frame `f` of group `g`: 1 KiB, different per group and frame. */
function frame(g: number, f: number): Uint8Array {
  return new Uint8Array(FRAME_BYTES).fill((g * FRAMES + f) % 251);
}

/** Bytes the relay holds for the track: every session's unsent output plus the shared cache. */
function heldBytes(r: Relay): number {
  let total = 0;
  for (const s of r.sessions) total += s.heldBytes;
  const track = r.origin.cachedTrack("anon/live", "video");
  for (const segment of track?.segments ?? []) for (const g of segment.source.groups()) total += g.byteLength;
  return total;
}

/** The relay's skipped-groups counter, read from its metrics. */
async function skippedGroups(r: Relay): Promise<number> {
  const text = await r.metrics.render();
  const line = text.split("\n").find((l) => l.startsWith("relay_groups_skipped_total"));
  return Number(line?.split(" ")[1] ?? "NaN");
}

describe("a slow subscriber through the relay", () => {
  it("keeps the relay's held bytes bounded while a fast subscriber gets every group in order", async () => {
    const r = await testRelay(cleanup);
    const tracks = publisher((await client(r)).conn, "live");
    await until(() => r.origin.broadcasts === 1, 2000, "routable");
    const fast = (await client(r)).conn.consume(Moq.Path.from("live")).subscribe("video", 0);
    const slow = await client(r);
    slow.conn.consume(Moq.Path.from("live")).subscribe("video", 0);
    await until(() => [...r.sessions].reduce((n, s) => n + s.subscriptions, 0) === 2, 2000, "both subscribed");
    await until(() => tracks.length === 1, 2000, "upstream subscription");
    const source = tracks[0];
    if (source === undefined) throw new Error("no track");
    // The slow subscriber stops reading its socket: only TCP and qmux credit push back now.
    slow.socket.pause();

    let peak = 0;
    for (let start = 0; start < GROUPS; start += BURST) {
      for (let g = start; g < start + BURST; g++) {
        const group = source.appendGroup();
        for (let f = 0; f < FRAMES; f++) group.writeFrame(frame(g, f));
        group.close();
      }
      for (let g = start; g < start + BURST; g++) {
        const got = await within(fast.nextGroupOrdered(), 3000, `fast group ${String(g)}`);
        expect(got?.sequence).toBe(g);
        for (let f = 0; f < FRAMES; f++) {
          const bytes = await within(got?.readFrame() ?? Promise.resolve(undefined), 3000, "fast frame");
          expect(bytes).toEqual(frame(g, f));
        }
        expect(await within(got?.readFrame() ?? Promise.resolve(undefined), 3000, "fast group end")).toBeUndefined();
        peak = Math.max(peak, heldBytes(r));
      }
    }

    // 2 MiB went through while the slow peer read nothing; the relay held about its 32-group
    // cache (128 KiB here), not the slow peer's backlog.
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan((GROUPS * FRAMES * FRAME_BYTES) / 4);
    for (const s of r.sessions) expect(s.outboundGroups).toBeLessThanOrEqual(256);
    // The slow subscriber fell behind and lost groups instead of growing the relay.
    expect(await skippedGroups(r)).toBeGreaterThan(0);
    // Its subscription is still being served (skipping, not dropping the peer).
    expect([...r.sessions].reduce((n, s) => n + s.subscriptions, 0)).toBe(2);
  });
});
