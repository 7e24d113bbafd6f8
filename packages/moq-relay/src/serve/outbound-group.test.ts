import { ManualClock } from "@handoff/seqlog";
import { type Group, GroupReader, Track } from "@handoff/moq-resume";
import { LITE_04, LITE_05, type LiteVersion } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { MAX_STREAM_PAYLOAD } from "@handoff/qmux";
import { OutboundGroup } from "./outbound-group.js";
import { CountingStats, FakeIo, frameBytes } from "../testing/harness.test-helpers.js";

/** An outbound group of subscribe id 7 over a fresh group `sequence` of a track. */
function setup(options: { sequence?: number; version?: LiteVersion; firstFrame?: number } = {}) {
  const track = new Track("video", { clock: new ManualClock() });
  const group = track.createGroup(options.sequence ?? 3, options.firstFrame === undefined ? {} : { firstFrame: options.firstFrame });
  const io = new FakeIo();
  const stats = new CountingStats();
  const reader = new GroupReader(group, track);
  const out = new OutboundGroup(options.version ?? LITE_04, 7, reader, stats);
  return { track, group, io, stats, out, reader };
}

function sent(io: FakeIo, version: LiteVersion = LITE_04) {
  const [id] = io.opened(false);
  if (id === undefined) throw new Error("no group stream opened");
  return { id, messages: io.messages(id, { role: "accepted-uni", version }) };
}

function write(group: Group, ...bytes: number[]): void {
  for (const b of bytes) group.write(Uint8Array.of(b));
}

describe("OutboundGroup", () => {
  it("opens a uni stream and writes the GROUP header with the subscribe id and sequence, then the frames", () => {
    const { group, io, out } = setup({ sequence: 3 });
    write(group, 1, 2);
    expect(out.pump(io)).toBe("idle");
    const { messages } = sent(io);
    expect(messages.slice(0, 2)).toEqual([
      { type: "stream_header", kind: "group" },
      { type: "group", subscribe: 7, sequence: 3 },
    ]);
    expect(frameBytes(messages)).toEqual([1, 2]);
  });

  it("reports no-stream and writes nothing while the peer's stream limit is reached, then opens once allowed", () => {
    const { group, io, out } = setup();
    write(group, 1);
    io.uniLeft = 0;
    expect(out.pump(io)).toBe("no-stream");
    expect(out.streamId).toBeUndefined();
    expect(io.log).toEqual([]);
    io.uniLeft = 1;
    expect(out.pump(io)).toBe("idle");
    expect(frameBytes(sent(io).messages)).toEqual([1]);
  });

  it("writes frames that arrive after an idle pump on the next pump", () => {
    const { group, io, out } = setup();
    write(group, 1);
    out.pump(io);
    write(group, 2, 3);
    expect(out.pump(io)).toBe("idle");
    expect(frameBytes(sent(io).messages)).toEqual([1, 2, 3]);
  });

  it("writes FIN after the last frame of a finished group and is done", () => {
    const { group, io, out } = setup();
    write(group, 1);
    group.finish();
    expect(out.pump(io)).toBe("done");
    expect(out.done).toBe(true);
    const { id, messages } = sent(io);
    expect(frameBytes(messages)).toEqual([1]);
    expect(io.stream(id).fin).toBe(true);
  });

  it("resets the stream with code 422 and counts it when the rest of the group is lost", () => {
    const { group, io, out, stats } = setup();
    write(group, 1);
    out.pump(io);
    group.abort();
    expect(out.pump(io)).toBe("done");
    const { id } = sent(io);
    expect(io.stream(id).resets).toEqual([422]);
    expect(io.stream(id).fin).toBe(false);
    expect(stats.incompletes).toBe(1);
  });

  it("keeps the bytes the framing did not take and writes them first, in order, once it has room", () => {
    const { group, io, out } = setup();
    write(group, 1, 2, 3);
    group.finish();
    io.credit = 5;
    expect(out.pump(io)).toBe("blocked");
    expect(out.pendingBytes).toBeGreaterThan(0);
    expect(io.stream(sent(io).id).fin).toBe(false);
    io.credit = Number.POSITIVE_INFINITY;
    expect(out.pump(io)).toBe("done");
    expect(out.pendingBytes).toBe(0);
    const { id, messages } = sent(io);
    expect(frameBytes(messages)).toEqual([1, 2, 3]);
    expect(io.stream(id).fin).toBe(true);
  });

  it("keeps a lone header back on a holding pump, and writes it with the first frame on the next", () => {
    const { group, io, out } = setup();
    expect(out.pump(io, true)).toBe("held");
    expect(io.log.filter((c) => c.op === "write")).toEqual([]);
    write(group, 1);
    expect(out.pump(io)).toBe("idle");
    expect(io.log.filter((c) => c.op === "write")).toHaveLength(1);
    expect(frameBytes(sent(io).messages)).toEqual([1]);
  });

  it("hands the framing the frame encodings every subscriber shares, not a copy joined per subscriber", () => {
    const { track, group, io, out, stats } = setup();
    const other = new OutboundGroup(LITE_04, 8, new GroupReader(group, track), stats);
    write(group, 1, 2);
    out.pump(io);
    other.pump(io);
    const [a, b] = io.opened(false);
    if (a === undefined || b === undefined) throw new Error("two group streams expected");
    const ours = io.stream(a).parts;
    const theirs = io.stream(b).parts;
    // Each stream: its own header, then the two frames, one write of three parts.
    expect(ours).toHaveLength(3);
    expect(theirs).toHaveLength(3);
    expect(ours[0]).not.toBe(theirs[0]);
    expect(ours[1]).toBe(theirs[1]);
    expect(ours[2]).toBe(theirs[2]);
    expect(io.log.filter((c) => c.op === "write")).toHaveLength(2);
  });

  it("counts each reset of its stream by code: abandoned with the caller's, lost frames with 422", () => {
    const { group, io, out, stats, track } = setup();
    write(group, 1);
    out.pump(io);
    out.abandon(io, 430);
    const other = new OutboundGroup(LITE_04, 8, new GroupReader(group, track), stats);
    other.pump(io);
    group.abort();
    other.pump(io);
    // A group that never had a stream is not reset: nothing to count.
    new OutboundGroup(LITE_04, 9, new GroupReader(group, track), stats).abandon(io, 0);
    expect(stats.groupResets).toEqual([430, 422]);
  });

  it("holds a written frame's bytes until the framing takes them", () => {
    const { group, io, out } = setup();
    out.pump(io);
    io.credit = 0;
    group.write(new Uint8Array(10));
    expect(out.pump(io)).toBe("blocked");
    // 10 payload bytes plus the size prefix wait here.
    expect(out.pendingBytes).toBe(11);
  });

  it("sends the rest of a group with frames no copy holds, then resets it with code 422 instead of FIN", () => {
    const { group, io, out, stats } = setup({ firstFrame: 2 });
    write(group, 20, 30);
    group.finish();
    expect(out.pump(io)).toBe("done");
    const { id, messages } = sent(io);
    expect(frameBytes(messages)).toEqual([20, 30]);
    expect([io.stream(id).fin, io.stream(id).resets, stats.incompletes]).toEqual([false, [422], 1]);
  });

  it("abandoning resets the stream and ends its group read, so no copy is kept for the frames it will not send", () => {
    const { group, io, out, reader } = setup();
    write(group, 1);
    out.pump(io);
    write(group, 2);
    out.abandon(io, 0x15);
    expect(io.stream(sent(io).id).resets).toEqual([0x15]);
    expect([reader.done, reader.position]).toEqual([true, 1]);
  });

  it("finishes a whole group with FIN and counts nothing incomplete", () => {
    const { group, io, out, stats } = setup();
    write(group, 1, 2);
    group.finish();
    out.pump(io);
    expect([io.stream(sent(io).id).fin, stats.incompletes]).toEqual([true, 0]);
  });

  it("counts the opened stream and each frame's payload bytes", () => {
    const { group, io, out, stats } = setup();
    group.write(Uint8Array.of(1, 1));
    group.write(Uint8Array.of(2, 2, 2));
    out.pump(io);
    expect([stats.groupsOut, stats.framesOut, stats.bytesOut]).toEqual([1, 2, 5]);
  });

  it("writes the frames available at one pump and the FIN in a single write", () => {
    const { group, io, out } = setup();
    write(group, 1, 2, 3);
    group.finish();
    expect(out.pump(io)).toBe("done");
    const { id, messages } = sent(io);
    expect(io.log.filter((c) => c.op === "write")).toEqual([{ op: "write", id, bytes: io.stream(id).chunks[0]?.length, fin: true }]);
    expect(frameBytes(messages)).toEqual([1, 2, 3]);
  });

  it("splits what it gathers into writes of about one STREAM frame each", () => {
    const { group, io, out } = setup();
    for (let i = 0; i < 4; i++) group.write(new Uint8Array(MAX_STREAM_PAYLOAD / 2).fill(i));
    group.finish();
    expect(out.pump(io)).toBe("done");
    const writes = io.log.flatMap((c) => (c.op === "write" ? [c.bytes] : []));
    expect(writes.length).toBeGreaterThan(1);
    for (const bytes of writes) expect(bytes).toBeLessThan(2 * MAX_STREAM_PAYLOAD);
    expect(frameBytes(sent(io).messages)).toEqual([0, 1, 2, 3]);
  });

  it("abandon resets an opened stream with the code and drops the bytes held", () => {
    const { group, io, out } = setup();
    write(group, 1);
    io.credit = 3;
    out.pump(io);
    out.abandon(io, 430);
    const { id } = sent(io);
    expect(io.stream(id).resets).toEqual([430]);
    expect(out.pendingBytes).toBe(0);
    expect(out.done).toBe(true);
    expect(out.pump(io)).toBe("done");
  });

  it("abandon before a stream was opened writes nothing", () => {
    const { io, out } = setup();
    out.abandon(io, 430);
    expect(io.log).toEqual([]);
    expect(out.pump(io)).toBe("done");
  });

  it("abandon after FIN does not reset the stream", () => {
    const { group, io, out } = setup();
    group.finish();
    out.pump(io);
    out.abandon(io, 430);
    expect(io.stream(sent(io).id).resets).toEqual([]);
  });

  it("writes the same encoded bytes object for a frame shared by two subscribers before lite-05", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const group = track.createGroup(0);
    const io = new FakeIo();
    const a = new OutboundGroup(LITE_04, 1, new GroupReader(group, track), new CountingStats());
    const b = new OutboundGroup(LITE_04, 2, new GroupReader(group, track), new CountingStats());
    a.pump(io);
    b.pump(io);
    group.write(Uint8Array.of(6, 6));
    a.pump(io);
    b.pump(io);
    const [ida, idb] = io.opened(false);
    // Chunk 0 is the header (it names the subscribe id); chunk 1 is the frame.
    expect(io.stream(ida ?? -1).chunks[1]).toBe(io.stream(idb ?? -1).chunks[1]);
  });

  it("writes one encoded header object for the groups of one sequence and subscribe id, and its own for another id", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const group = track.createGroup(5);
    const io = new FakeIo();
    const [a, b, c] = [3, 3, 4].map((id) => new OutboundGroup(LITE_04, id, new GroupReader(group, track), new CountingStats()));
    // Pumped before any frame: each header leaves alone, as chunk 0 of its stream.
    for (const out of [a, b, c]) out?.pump(io);
    const [ida, idb, idc] = io.opened(false);
    const header = (id: number | undefined) => io.stream(id ?? -1).chunks[0];
    expect(header(ida)).toBe(header(idb));
    expect(header(idc)).not.toBe(header(ida));
    expect(sent(io).messages[1]).toEqual({ type: "group", subscribe: 3, sequence: 5 });
    expect(io.messages(idc ?? -1, { role: "accepted-uni", version: LITE_04 })[1]).toEqual({ type: "group", subscribe: 4, sequence: 5 });
  });

  it("carries each frame's timestamp on lite-05, and 0 for a frame written without one", () => {
    const { group, io, out } = setup({ version: LITE_05 });
    group.write(Uint8Array.of(1), 100);
    group.write(Uint8Array.of(2), 140);
    const plain = new Track("video", { clock: new ManualClock() });
    const untimed = plain.createGroup(0);
    untimed.write(Uint8Array.of(3));
    const io2 = new FakeIo();
    new OutboundGroup(LITE_05, 7, new GroupReader(untimed, plain), new CountingStats()).pump(io2);
    out.pump(io);
    const timestamps = (m: ReturnType<typeof sent>["messages"]) => m.flatMap((x) => (x.type === "frame" ? [x.timestamp] : []));
    expect(timestamps(sent(io, LITE_05).messages)).toEqual([100, 140]);
    expect(timestamps(sent(io2, LITE_05).messages)).toEqual([0]);
  });

  it("shares a lite-05 frame's encoding between streams that read the group from its start", () => {
    const track = new Track("video", { clock: new ManualClock() });
    const group = track.createGroup(0);
    const io = new FakeIo();
    const a = new OutboundGroup(LITE_05, 1, new GroupReader(group, track), new CountingStats());
    const b = new OutboundGroup(LITE_05, 2, new GroupReader(group, track), new CountingStats());
    a.pump(io);
    b.pump(io);
    group.write(Uint8Array.of(1), 100);
    a.pump(io);
    b.pump(io);
    group.write(Uint8Array.of(2), 140);
    a.pump(io);
    b.pump(io);
    const [ida, idb] = io.opened(false);
    expect(io.stream(ida ?? -1).chunks[2]).toBe(io.stream(idb ?? -1).chunks[2]);
    const timestamps = (id: number) => io.messages(id, { role: "accepted-uni", version: LITE_05 }).flatMap((x) => (x.type === "frame" ? [x.timestamp] : []));
    expect([timestamps(ida ?? -1), timestamps(idb ?? -1)]).toEqual([[100, 140], [100, 140]]);
  });

  it("encodes a lite-05 frame afresh for a stream whose previous timestamp differs", () => {
    const first = Uint8Array.of(1);
    const second = Uint8Array.of(2);
    const track = new Track("video", { clock: new ManualClock() });
    const whole = track.createGroup(0);
    whole.write(first, 100);
    whole.write(second, 140);
    const other = new Track("video", { clock: new ManualClock() });
    // A copy that joined mid-group: its reader gets only the second frame, after a gap.
    const tail = other.createGroup(0, { firstFrame: 1 });
    tail.write(second, 140);
    const io = new FakeIo();
    new OutboundGroup(LITE_05, 1, new GroupReader(whole, track), new CountingStats()).pump(io);
    new OutboundGroup(LITE_05, 2, new GroupReader(tail, other), new CountingStats()).pump(io);
    const [ida, idb] = io.opened(false);
    const timestamps = (id: number) => io.messages(id, { role: "accepted-uni", version: LITE_05 }).flatMap((x) => (x.type === "frame" ? [x.timestamp] : []));
    expect([timestamps(ida ?? -1), timestamps(idb ?? -1)]).toEqual([[100, 140], [140]]);
  });
});
