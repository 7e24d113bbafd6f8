import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { until, within } from "./harness.test-helpers.js";

// @moq/net's .d.ts files import without extensions, which NodeNext resolution cannot
// follow, so the parts the tests use are typed here.

/** A track's publisher properties (TRACK_INFO). */
export interface NetTrackInfo {
  readonly priority?: number;
  readonly ordered?: boolean;
  readonly latencyMax?: number;
  readonly timescale?: number;
}

/** A frame timestamp: `value` units of `scale` per second. */
export interface NetTimestamp {
  readonly value: number;
  readonly scale: number;
}

/** A group being read. */
export interface NetGroup {
  readonly sequence: number;
  readFrame(): Promise<{ readonly payload: Uint8Array; readonly timestamp: NetTimestamp } | undefined>;
}

/** A live subscription. */
export interface NetSubscriber {
  recvGroup(): Promise<NetGroup | undefined>;
  recvDatagram(): Promise<{ readonly sequence: number; readonly timestamp: NetTimestamp; readonly payload: Uint8Array } | undefined>;
  info(): Promise<Required<NetTrackInfo>>;
  close(): void;
}

/** A group being written. */
export interface NetGroupProducer {
  writeString(text: string): void;
  writeFrame(frame: { readonly payload: Uint8Array; readonly timestamp: NetTimestamp }): void;
  close(): void;
}

/** A track being published. */
export interface NetTrackProducer {
  readonly name: string;
  /** Undefined while open. */
  readonly closed: { peek(): unknown };
  appendGroup(): NetGroupProducer;
  /** A single-frame group on the datagram channel; returns its sequence. */
  appendDatagram(timestamp: NetTimestamp, payload: Uint8Array): number;
  close(): void;
}

interface NetRequest {
  accept(info?: NetTrackInfo): NetTrackProducer;
}

/** A broadcast being published. */
export interface NetBroadcastProducer {
  requested(): Promise<NetRequest | undefined>;
  close(): void;
}

/** A subscription option set. */
export interface NetSubscription {
  readonly priority?: number;
  readonly ordered?: boolean;
  readonly latencyMax?: number;
  readonly startGroup?: number;
}

/** An established @moq/net session. */
export interface NetConnection {
  readonly version: string;
  announced(prefix?: string): { next(): Promise<{ path: string; active: boolean } | undefined> };
  publish(path: string, broadcast: NetBroadcastProducer): void;
  consume(path: string): { subscribe(track: string, options?: NetSubscription): NetSubscriber };
  close(): void;
  readonly closed: Promise<void>;
}

interface NetModule {
  readonly Connection: { connect(url: URL, props?: { transport?: unknown }): Promise<NetConnection> };
  readonly Broadcast: { readonly Producer: new () => NetBroadcastProducer };
  readonly Path: { from(...parts: string[]): string };
  readonly Time: { readonly Timestamp: new (value: number, scale: number) => NetTimestamp };
}

/** @moq/net, typed as the tests use it. */
export async function net(): Promise<NetModule> {
  return await import("@moq/net");
}

/**
 * How a test connects @moq/net 0.3: `default` is what the client offers by itself (27
 * subprotocols, `qmux-02.moq-lite-05` first); a subprotocol name pins that one offer.
 */
export type NetOffer = "default" | `qmux-0${"0" | "1" | "2"}.moq-lite-0${"5" | "6-wip" | "6"}`;

/**
 * The offers the e2e tests run over: every version the client speaks over every qmux it speaks:
 * lite-05 (by default over qmux-02) and the lite-06 it speaks when asked (`moq-lite-06-wip`).
 */
export const NET_OFFERS: readonly NetOffer[] = [
  "default",
  "qmux-01.moq-lite-05",
  "qmux-00.moq-lite-05",
  "qmux-02.moq-lite-06-wip",
  "qmux-01.moq-lite-06-wip",
  "qmux-00.moq-lite-06-wip",
];

/** The moq-lite version an offer gets. */
export function netVersion(offer: NetOffer): string {
  return offer === "default" ? "moq-lite-05" : offer.slice("qmux-0X.".length);
}

interface QmuxSession {
  readonly ready: Promise<void>;
  readonly datagrams?: { readonly maxDatagramSize: number };
}
type QmuxCtor = new (url: string | URL, options?: { protocols?: string[]; requireProtocol?: boolean }) => QmuxSession;

/** @moq/qmux, the transport @moq/net uses (its dependency, not the relay's). */
async function qmux(): Promise<QmuxCtor> {
  const require = createRequire(createRequire(import.meta.url).resolve("@moq/net"));
  const mod = (await import(pathToFileURL(require.resolve("@moq/qmux")).href)) as { default: QmuxCtor };
  return mod.default;
}

/** Connects @moq/net to the relay over `offer`, bounded in time; `cleanup` closes it. */
export async function connectNet(cleanup: (() => unknown)[], port: number, path: string, offer: NetOffer = "default"): Promise<NetConnection> {
  const url = new URL(`http://127.0.0.1:${String(port)}/${path}`);
  const Moq = await net();
  const connecting =
    offer === "default"
      ? Moq.Connection.connect(url)
      : qmux().then(async (Session) => {
          const transport = new Session(url, { protocols: [offer], requireProtocol: true });
          await transport.ready;
          // `ready` comes before the relay's transport parameters, and the client decides once, when
          // the connection is made, whether it may send datagrams (qmux-01/02): wait for them.
          if (!offer.startsWith("qmux-00")) await until(() => (transport.datagrams?.maxDatagramSize ?? 0) > 0, 3000, "the relay's transport parameters");
          return Moq.Connection.connect(url, { transport });
        });
  const conn = await within(connecting, 4000, `connect ${url.href} over ${offer}`);
  cleanup.push(() => {
    conn.close();
  });
  return conn;
}

/** Publishes `name` on `conn`, accepting every track the relay asks for with `info`; the tracks, in request order. */
export async function netPublisher(conn: NetConnection, name: string, info: NetTrackInfo = {}): Promise<{ broadcast: NetBroadcastProducer; tracks: NetTrackProducer[] }> {
  const Moq = await net();
  const broadcast = new Moq.Broadcast.Producer();
  const tracks: NetTrackProducer[] = [];
  conn.publish(Moq.Path.from(name), broadcast);
  void (async () => {
    for (;;) {
      const request = await broadcast.requested();
      if (!request) break;
      tracks.push(request.accept(info));
    }
  })();
  return { broadcast, tracks };
}

/**
 * The track a subscription asked `pub` for, once asked. The client answers a TRACK query (which
 * the relay sends first) with a throwaway request it closes at once: the subscription's is the
 * one still open.
 */
export async function liveTrack(pub: { readonly tracks: readonly NetTrackProducer[] }, ms = 4000): Promise<NetTrackProducer> {
  const open = (): NetTrackProducer | undefined => pub.tracks.find((t) => t.closed.peek() === undefined);
  await until(() => open() !== undefined, ms, "publisher asked for the track");
  const track = open();
  if (track === undefined) throw new Error("no track");
  return track;
}

/** Writes groups `from` to `to - 1` of `frames` string frames each, `g<group> f<frame>`. */
export function writeGroups(track: NetTrackProducer, from: number, to: number, frames = 3): void {
  for (let g = from; g < to; g++) {
    const group = track.appendGroup();
    for (let f = 0; f < frames; f++) group.writeString(frameText(g, f));
    group.close();
  }
}

/** The text of frame `f` of group `g` as {@link writeGroups} writes it. */
export function frameText(g: number, f: number): string {
  return `g${String(g)} f${String(f)}`;
}

/** Reads the next group (arrival order) and all its frames as strings, bounded in time. */
export async function readNetGroup(sub: NetSubscriber): Promise<{ sequence: number; frames: string[] } | undefined> {
  const group = await within(sub.recvGroup(), 3000, "next group");
  if (!group) return undefined;
  const frames: string[] = [];
  const text = new TextDecoder();
  for (;;) {
    const frame = await within(group.readFrame(), 3000, "next frame");
    if (!frame) break;
    frames.push(text.decode(frame.payload));
  }
  return { sequence: group.sequence, frames };
}

/** What a subscriber got so far: every group in arrival order with its frames as strings. */
export interface NetReceived {
  readonly groups: { readonly sequence: number; readonly frames: string[] }[];
  /** Frames received in total. */
  count(): number;
  /** Group sequences with their frame counts ("0:3 1:2"), for failure messages. */
  summary(): string;
}

/** Records every group and frame `sub` delivers, as they come (arrival order). */
export function collect(sub: NetSubscriber): NetReceived {
  const received: NetReceived = {
    groups: [],
    count: () => received.groups.reduce((n, g) => n + g.frames.length, 0),
    summary: () => received.groups.map((g) => `${String(g.sequence)}:${String(g.frames.length)}`).join(" "),
  };
  const text = new TextDecoder();
  void (async () => {
    for (;;) {
      const group = await sub.recvGroup();
      if (!group) return;
      const entry = { sequence: group.sequence, frames: [] as string[] };
      received.groups.push(entry);
      void (async () => {
        for (;;) {
          const frame = await group.readFrame();
          if (!frame) return;
          entry.frames.push(text.decode(frame.payload));
        }
      })().catch(() => undefined);
    }
  })().catch(() => undefined);
  return received;
}

/** The groups `[from, to)` of `frames` frames each, as {@link writeGroups} writes them. */
export function expectedGroups(from: number, to: number, frames = 3): { sequence: number; frames: string[] }[] {
  return Array.from({ length: to - from }, (_, i) => ({ sequence: from + i, frames: Array.from({ length: frames }, (_, f) => frameText(from + i, f)) }));
}
