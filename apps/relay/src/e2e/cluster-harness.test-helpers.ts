import * as Moq from "@moq/lite";
import { expect } from "vitest";
import type { PeerTiming } from "../cluster/peer.js";
import type { Relay } from "../server/relay.js";
import { connect, livePublisher, payload, testRelay, until, within } from "./harness.test-helpers.js";

/** The qmux/TCP URL of a relay, for a peer list or a GOAWAY. */
export function tcpUrl(relay: Relay, cost?: number): string {
  if (relay.ports.tcp === undefined) throw new Error("relay has no tcp port");
  return `tcp://127.0.0.1:${String(relay.ports.tcp)}${cost === undefined ? "" : `?cost=${String(cost)}`}`;
}

/** A relay linked to `peers`, with short timings so a test stays fast. */
export function clusterRelay(cleanup: (() => unknown)[], peers: readonly string[], timing: Partial<PeerTiming> = {}): Promise<Relay> {
  return testRelay(cleanup, undefined, { cluster: { peers, timing: { minBackoffMs: 50, maxBackoffMs: 500, ...timing } } });
}

/** Waits until `relay` can route the broadcast `anon/live`. */
export async function routable(relay: Relay, what: string): Promise<void> {
  await until(() => relay.origin.routes("anon/live").length > 0, 5000, what);
}

/** A publisher of `anon/live` on `relay` whose track `video` the test writes group by group. */
export async function publisher(cleanup: (() => unknown)[], relay: Relay) {
  const broadcast = await livePublisher(cleanup, relay);
  const req = await within(broadcast.requested(), 5000, "track requested at the origin");
  if (!req) throw new Error("publisher closed");
  const track = req.track;
  let open: Moq.Group | undefined;
  return {
    /** Writes frames `[from, to)` of group `g` (opening it first if needed). */
    frames(g: number, from: number, to: number): void {
      open ??= track.appendGroup();
      expect(open.sequence).toBe(g);
      for (let f = from; f < to; f++) open.writeFrame(payload(g, f));
    },
    /** Closes the open group. */
    close(): void {
      open?.close();
      open = undefined;
    },
    /** Writes whole groups `[from, to)` of `frames` frames each. */
    groups(from: number, to: number, frames: number): void {
      for (let g = from; g < to; g++) {
        this.frames(g, 0, frames);
        this.close();
      }
    },
  };
}

/** What a subscriber got: every group in arrival order with its frames. */
export interface Received {
  readonly groups: { readonly sequence: number; readonly frames: Uint8Array[] }[];
  /** Frames received in total. */
  count(): number;
  /** Group sequences with their frame counts, for failure messages ("0:4 1:2"). */
  summary(): string;
}

/** Subscribes to `anon/live`/`video` on `relay` with @moq/lite and records every group (arrival order). */
export async function subscriber(cleanup: (() => unknown)[], relay: Relay): Promise<Received> {
  const conn = await connect(relay.ports.http, "anon", "lite-04");
  // Closed after the relays (cleanups run in reverse): @moq/qmux 0.0.6 throws, unhandled, on a
  // STREAM frame that arrives after the client closed, so the relay must hang up first.
  cleanup.unshift(() => {
    conn.close();
  });
  const track = conn.consume(Moq.Path.from("live")).subscribe("video", 0);
  const received: Received = {
    groups: [],
    count: () => received.groups.reduce((n, g) => n + g.frames.length, 0),
    summary: () => received.groups.map((g) => `${String(g.sequence)}:${String(g.frames.length)}`).join(" "),
  };
  void (async () => {
    for (;;) {
      const group = await track.recvGroup();
      if (!group) return;
      const entry = { sequence: group.sequence, frames: [] as Uint8Array[] };
      received.groups.push(entry);
      for (;;) {
        const frame = await group.readFrame();
        if (!frame) break;
        entry.frames.push(frame);
      }
    }
  })().catch(() => undefined);
  return received;
}

/** Asserts the subscriber got exactly groups `[from, to)`, once each, in order, with every frame's payload. */
export function expectContiguous(received: Received, from: number, to: number, frames: number): void {
  expect(received.groups.map((g) => g.sequence)).toEqual(Array.from({ length: to - from }, (_, i) => from + i));
  for (const group of received.groups) {
    expect(group.frames.map((f) => new TextDecoder().decode(f))).toEqual(
      Array.from({ length: frames }, (_, f) => new TextDecoder().decode(payload(group.sequence, f))),
    );
  }
}

/** Reads one counter of a relay's metrics (0 when absent). */
export async function metric(relay: Relay, name: string, labels = ""): Promise<number> {
  const text = await relay.metrics.render();
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels === "" ? "" : `{${labels}}`} `));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
}
