// fast-check generators of hostile input for the relay's fuzz tests: moq-lite streams (well
// formed, then mutated), raw transport frames and bytes, and HTTP request lines. Test helper.
import fc from "fast-check";
import {
  hasGoaway,
  hasTrackStream,
  isLegacy,
  LITE_02,
  LITE_04,
  LITE_05,
  LITE_06,
  LITE_06_WIP,
  LiteError,
  type LiteMessage,
  LiteStreamWriter,
  type LiteVersion,
} from "@handoff/moq-resume/lite";
import { concatBytes, type FramingKind } from "@handoff/qmux";
import { encodeQmuxFrame, qmuxFrameArb } from "@handoff/qmux/testing";

/** A connection the fuzz runs: its framing, and the moq version it is fixed to (undefined: in-band SETUP). */
export interface Connection {
  readonly framing: FramingKind;
  readonly version: LiteVersion | undefined;
  /** The WebSocket subprotocol that selects both. */
  readonly subprotocol: string;
}

/** The connections a client can open: the legacy framing with the in-band SETUP, and qmux with an ALPN. */
export const CONNECTIONS: readonly Connection[] = [
  { framing: "webtransport", version: undefined, subprotocol: "webtransport" },
  { framing: "qmux-00", version: LITE_04, subprotocol: "qmux-00.moq-lite-04" },
  { framing: "qmux-01", version: LITE_05, subprotocol: "qmux-01.moq-lite-05" },
  { framing: "qmux-02", version: LITE_06_WIP, subprotocol: "qmux-02.moq-lite-06-wip" },
  { framing: "qmux-02", version: LITE_06, subprotocol: "qmux-02.moq-lite-06" },
];

const MAX = Number.MAX_SAFE_INTEGER;
/** Varint values: mostly small (ids that exist), sometimes huge. */
const num = fc.oneof({ weight: 4, arbitrary: fc.nat(8) }, fc.nat(100_000), fc.constantFrom(MAX, MAX - 1, 2 ** 32, 2 ** 31 - 1));
const maybe = fc.option(num, { nil: undefined });
const part = fc.oneof(fc.constantFrom("cam", "fz", "room", "a"), fc.stringMatching(/^[a-z0-9._-]{1,6}$/), fc.string({ maxLength: 4 }));
/** Paths: the routable ones often, long and deep ones sometimes. */
const path = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("cam", "fz", "", "room/cam") },
  fc.array(part, { maxLength: 5 }).map((p) => p.join("/")),
  fc.integer({ min: 30, max: 40 }).map((n) => Array.from({ length: n }, (_, i) => `p${String(i)}`).join("/")),
  fc.string({ maxLength: 300 }),
);
const name = fc.oneof({ weight: 4, arbitrary: fc.constant("video") }, fc.string({ maxLength: 12 }));
const hops = fc.array(num, { maxLength: 40 });
const payload = fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 0, max: 70_000 }).map((n) => new Uint8Array(n)));

const prefs = fc.record({ priority: fc.nat(255), ordered: fc.boolean(), maxLatency: num, startGroup: maybe, endGroup: maybe, startFrame: fc.nat(4), endFrame: maybe });

/** The messages of one stream the client opens, for `v` (some may not exist in `v`: encoding then fails and garbage is sent). */
interface ClientStream {
  readonly bidi: boolean;
  readonly messages: LiteMessage[];
}

function clientStream(v: LiteVersion): fc.Arbitrary<ClientStream> {
  const head = (kind: "announce" | "subscribe" | "fetch" | "probe" | "goaway" | "track" | "group" | "setup"): LiteMessage => ({ type: "stream_header", kind });
  const bidi = (messages: fc.Arbitrary<LiteMessage[]>): fc.Arbitrary<ClientStream> => messages.map((m) => ({ bidi: true, messages: m }));
  const streams: fc.Arbitrary<ClientStream>[] = [
    bidi(fc.record({ prefix: path, excludeHop: num }).map((m): LiteMessage[] => [head("announce"), { type: "announce_request", ...m }])),
    bidi(
      fc
        // Mostly the broadcast the test's publisher has, so the relay serves it and fans out to it.
        .tuple(fc.record({ id: num, broadcast: fc.oneof({ weight: 3, arbitrary: fc.constant("cam") }, path), track: name }), prefs, fc.array(prefs, { maxLength: 3 }))
        .map(([s, p, ups]): LiteMessage[] => [head("subscribe"), { type: "subscribe", ...s, ...p }, ...ups.map((u): LiteMessage => ({ type: "subscribe_update", ...u }))]),
    ),
    fc
      // Subscribe id 0 is the relay's first subscription on this peer: the one most often live.
      .tuple(fc.record({ subscribe: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, num), sequence: num, frameStart: fc.nat(3) }), fc.array(fc.tuple(payload, num), { maxLength: 5 }))
      .map(([g, frames]) => ({
        bidi: false,
        messages: [head("group"), { type: "group", ...g }, ...frames.map(([p, t]): LiteMessage => ({ type: "frame", payload: p, timestamp: t }))],
      })),
    bidi(fc.array(fc.record({ bitrate: maybe, rtt: maybe }), { maxLength: 3 }).map((ps): LiteMessage[] => [head("probe"), ...ps.map((p): LiteMessage => ({ type: "probe", ...p }))])),
  ];
  if (hasGoaway(v)) streams.push(bidi(fc.string({ maxLength: 40 }).map((uri): LiteMessage[] => [head("goaway"), { type: "goaway", uri }])));
  if (hasTrackStream(v)) {
    streams.push(
      bidi(fc.record({ broadcast: path, track: name }).map((m): LiteMessage[] => [head("track"), { type: "track", ...m }])),
      bidi(
        fc
          .record({ broadcast: path, track: name, priority: fc.nat(255), group: num, startFrame: fc.nat(3), endFrame: maybe })
          .map((m): LiteMessage[] => [head("fetch"), { type: "fetch", ...m }]),
      ),
      fc
        .record({
          probe: fc.constantFrom("none" as const, "report" as const, "increase" as const),
          path: fc.option(path, { nil: undefined }),
          role: fc.constantFrom("both" as const, "publisher" as const, "subscriber" as const),
          cost: maybe,
          origin: maybe,
        })
        .map((s): ClientStream => ({ bidi: false, messages: [head("setup"), { type: "setup", ...s, unknown: [] }] })),
    );
  }
  return fc.oneof(...streams);
}

/** What a publisher answers on the relay's announce request: announces of its own. */
function announceAnswer(v: LiteVersion): fc.Arbitrary<LiteMessage[]> {
  const announce = fc
    .record({ status: fc.constantFrom("active" as const, "ended" as const, "restart" as const), suffix: fc.oneof({ weight: 2, arbitrary: fc.constant("fz") }, path), hops, id: num, cost: num })
    .map((a): LiteMessage => ({ type: "announce", ...a }));
  const first: fc.Arbitrary<LiteMessage[]> = isLegacy(v)
    ? fc.array(path, { maxLength: 3 }).map((suffixes) => [{ type: "announce_init", suffixes }])
    : hasTrackStream(v)
      ? fc.record({ hopId: num, activeCount: num }).map((ok) => [{ type: "announce_ok", ...ok }])
      : fc.constant([]);
  return fc.tuple(first, fc.array(announce, { maxLength: 4 })).map(([a, b]) => [...a, ...b]);
}

/** What a publisher answers on the relay's SUBSCRIBE. */
const subscribeAnswer: fc.Arbitrary<LiteMessage[]> = fc.array(
  fc.oneof(
    fc.record({ priority: fc.nat(255), ordered: fc.boolean(), maxLatency: num, startGroup: maybe, endGroup: maybe }).map((m): LiteMessage => ({ type: "subscribe_ok", ...m })),
    fc.record({ start: num, end: num, error: num }).map((m): LiteMessage => ({ type: "subscribe_drop", ...m })),
    num.map((group): LiteMessage => ({ type: "subscribe_start", group })),
    num.map((group): LiteMessage => ({ type: "subscribe_end", group })),
  ),
  { maxLength: 3 },
);

/** Encodes `messages` for `v`; a message `v` cannot carry (or a value it cannot encode) ends the encoding there. */
function encode(v: LiteVersion, messages: readonly LiteMessage[]): Uint8Array {
  const writer = new LiteStreamWriter(v);
  const parts: Uint8Array[] = [];
  for (const msg of messages) {
    try {
      parts.push(writer.encode(msg));
    } catch (err) {
      if (!(err instanceof LiteError)) throw err;
      break;
    }
  }
  return concatBytes(parts, parts.reduce((n, p) => n + p.length, 0));
}

/** `bytes` as they are, or damaged: bits flipped, cut short, bytes or huge varints spliced in, or garbage instead. */
export function mutated(bytes: Uint8Array): fc.Arbitrary<Uint8Array> {
  const at = (n: number): number => (bytes.length === 0 ? 0 : n % (bytes.length + 1));
  return fc.oneof(
    // Mostly intact, so a case gets past the first message and into the relay's later states.
    { weight: 8, arbitrary: fc.constant(bytes) },
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }).map((flips) => {
      const copy = Uint8Array.from(bytes);
      if (copy.length > 0) for (const [i, x] of flips) copy[i % copy.length] = (copy[i % copy.length] ?? 0) ^ x;
      return copy;
    }),
    fc.nat().map((n) => bytes.subarray(0, at(n))),
    fc
      .tuple(fc.nat(), fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 16 }), fc.constantFrom(Uint8Array.of(0x3f, 0xff), Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), Uint8Array.of(0xbf, 0xff, 0xff, 0xff))))
      .map(([n, insert]) => concatBytes([bytes.subarray(0, at(n)), insert, bytes.subarray(at(n))], bytes.length + insert.length)),
    fc.uint8Array({ maxLength: 48 }),
  );
}

/** One thing a fuzzing client does. */
export type Action =
  /** Opens a stream of its own and writes `chunks` on it (then FIN when `fin`). */
  | { readonly kind: "open"; readonly bidi: boolean; readonly chunks: readonly Uint8Array[]; readonly fin: boolean }
  /** Writes on the `nth` bidi stream the relay opened (announce request, then subscriptions). */
  | { readonly kind: "answer"; readonly nth: number; readonly chunks: readonly Uint8Array[]; readonly fin: boolean }
  /** Resets (or stops) the `nth` stream it opened. */
  | { readonly kind: "reset"; readonly nth: number; readonly stop: boolean; readonly code: number }
  /** Bytes put on the wire as they are, bypassing the client's framing. */
  | { readonly kind: "raw"; readonly bytes: Uint8Array }
  /** Time passes. */
  | { readonly kind: "tick"; readonly ms: number };

/** Splits `bytes` into up to 4 chunks at arbitrary points. */
function chunks(bytes: Uint8Array): fc.Arbitrary<Uint8Array[]> {
  return fc.array(fc.nat(bytes.length), { maxLength: 3 }).map((cuts) => {
    const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
    const out: Uint8Array[] = [];
    for (let i = 0; i + 1 < points.length; i++) out.push(bytes.subarray(points[i] ?? 0, points[i + 1] ?? 0));
    return out;
  });
}

/** A whole fuzz case: a connection and what its client does, in order. */
export interface FuzzCase {
  readonly connection: Connection;
  readonly actions: readonly Action[];
}

/**
 * The SETUP a client sends first: the in-band 0x20 SETUP of the legacy framing (its version list
 * sometimes odd), or lite-05's SETUP stream; either maybe damaged.
 */
function setupAction(v: LiteVersion | undefined): fc.Arbitrary<Action> {
  if (v === undefined) {
    return fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(LITE_02) }, num), { minLength: 1, maxLength: 3 }).chain((versions) =>
      mutated(new LiteStreamWriter(LITE_02).encode({ type: "client_setup", versions, parameters: [] })).map(
        (bytes): Action => ({ kind: "open", bidi: true, chunks: [bytes], fin: false }),
      ),
    );
  }
  const setup: LiteMessage = { type: "setup", probe: "none", path: undefined, role: "both", cost: undefined, origin: undefined, unknown: [] };
  return mutated(encode(v, [{ type: "stream_header", kind: "setup" }, setup])).map((bytes): Action => ({ kind: "open", bidi: false, chunks: [bytes], fin: true }));
}

/** Raw qmux frames, any kind, arbitrary fields (encoded, then maybe damaged). */
const qmuxFrameBytes: fc.Arbitrary<Uint8Array> = qmuxFrameArb.chain((frame) => mutated(encodeQmuxFrame(frame)));

/** Fuzz cases over every connection kind. */
export function fuzzCase(connections: readonly Connection[] = CONNECTIONS): fc.Arbitrary<FuzzCase> {
  return fc.constantFrom(...connections).chain((connection) => {
    const v = connection.version ?? LITE_02;
    const framed = connection.framing !== "webtransport";
    const action: fc.Arbitrary<Action> = fc.oneof(
      { weight: 5, arbitrary: clientStream(v).chain(({ bidi, messages }) => mutated(encode(v, messages)).chain((bytes) => fc.record({ chunks: chunks(bytes), fin: fc.boolean() }).map(({ chunks: c, fin }): Action => ({ kind: "open", bidi, chunks: c, fin })))) },
      {
        weight: 3,
        arbitrary: fc
          // Stream 0 is the relay's announce request; later ones are its subscriptions.
          .tuple(fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, fc.nat(3)), fc.oneof(announceAnswer(v), subscribeAnswer))
          .chain(([nth, messages]) => mutated(encode(v, messages)).chain((bytes) => fc.record({ chunks: chunks(bytes), fin: fc.boolean() }).map(({ chunks: c, fin }): Action => ({ kind: "answer", nth, chunks: c, fin })))),
      },
      { weight: 1, arbitrary: fc.record({ nth: fc.nat(4), stop: fc.boolean(), code: num }).map((r): Action => ({ kind: "reset", ...r })) },
      { weight: 1, arbitrary: (framed ? fc.oneof(qmuxFrameBytes, fc.uint8Array({ maxLength: 40 })) : fc.uint8Array({ maxLength: 40 })).map((bytes): Action => ({ kind: "raw", bytes })) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 40_000 }).map((ms): Action => ({ kind: "tick", ms })) },
    );
    const actions = fc.array(action, { maxLength: 10 });
    const setupFirst = connection.version === undefined || hasTrackStream(connection.version);
    const withSetup = setupFirst ? fc.tuple(setupAction(connection.version), actions).map(([s, a]) => [s, ...a]) : actions;
    return withSetup.map((a) => ({ connection, actions: a }));
  });
}

const METHODS = ["GET", "POST", "PUT", "HEAD", "OPTIONS", "DELETE", "CONNECT", "G\u00e9T", ""];
const TARGETS = [
  "/",
  "/health",
  "/metrics",
  "/announced/",
  "/announced/cam",
  "/fetch/cam/video?group=0",
  "/fetch/cam/video?group=-1",
  "/fetch/cam/video?group=99999999999999999999",
  "/fetch/cam",
  "/goaway?uri=tcp://x&timeout=1",
  "/%ZZ",
  "//[",
  "http://[",
  "*",
  "/anon?jwt=%zz",
  "/anon?jwt=eyJhbGciOiJub25lIn0.e30.",
];

/** An HTTP request: request line, headers (sometimes an upgrade), body; then maybe damaged. */
export const httpRequest: fc.Arbitrary<{ readonly bytes: Uint8Array; readonly wellFormed: boolean }> = fc
  .record({
    method: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...METHODS) }, fc.string({ maxLength: 8 })),
    target: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...TARGETS) },
      fc.webPath(),
      fc.string({ maxLength: 60 }).map((s) => `/${s}`),
      fc.integer({ min: 33, max: 80 }).map((n) => `/${Array.from({ length: n }, (_, i) => `p${String(i)}`).join("/")}`),
      fc.integer({ min: 1000, max: 20_000 }).map((n) => `/${"a".repeat(n)}`),
    ),
    version: fc.oneof({ weight: 4, arbitrary: fc.constant("HTTP/1.1") }, fc.constantFrom("HTTP/1.0", "HTTP/2.0", "HTTP/1.1x", "")),
    upgrade: fc.boolean(),
    subprotocol: fc.oneof(fc.constantFrom(...CONNECTIONS.map((c) => c.subprotocol), "qmux-00", "moql", "nope", ""), fc.string({ maxLength: 20 })),
    auth: fc.option(fc.string({ maxLength: 60 }), { nil: undefined }),
    body: fc.string({ maxLength: 40 }),
  })
  .chain((r) => {
    const headers = [`Host: relay`];
    if (r.upgrade) {
      headers.push("Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13", `Sec-WebSocket-Protocol: ${r.subprotocol}`);
    }
    if (r.auth !== undefined) headers.push(`Authorization: Bearer ${r.auth}`);
    headers.push(`Content-Length: ${String(Buffer.byteLength(r.body))}`);
    const text = `${r.method} ${r.target} ${r.version}\r\n${headers.join("\r\n")}\r\n\r\n${r.body}`;
    const bytes = new Uint8Array(Buffer.from(text, "utf8"));
    const wellFormed = METHODS.slice(0, 7).includes(r.method) && r.version.startsWith("HTTP/1.") && r.version.length === 8 && /^[\x21-\x7e]+$/.test(r.target) && !r.upgrade && /^[\x20-\x7e]*$/.test(r.auth ?? "");
    return mutated(bytes).map((m) => ({ bytes: m, wellFormed: wellFormed && m === bytes }));
  });
