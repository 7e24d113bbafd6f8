// Control streams under backpressure, at the transport seam: a real framing on both ends, a
// watcher that stops returning credit, and announces that outgrow the relay's send buffer.
import { LITE_04, type LiteMessage } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { LiteStreamReader } from "@handoff/moq-resume/lite";
import { RelayCode } from "../rules/relay-code.js";
import { TestPeer, testOrigin } from "../testing/test-peer.test-helpers.js";

const NAMES = Array.from({ length: 60 }, (_, i) => `room/camera-with-a-long-name-${String(i).padStart(3, "0")}`);

/** A publisher that announces `NAMES`, and a watcher of everything that grants 100 bytes of credit and then none. */
function scene(limits: { maxControlBytes?: number } = {}) {
  const origin = testOrigin();
  const publisher = new TestPeer(origin, { id: 1 });
  const [announce] = publisher.opened(true);
  if (announce === undefined) throw new Error("no announce stream");
  const watcher = new TestPeer(origin, {
    id: 2,
    permissions: { publish: [], subscribe: [""] },
    clientParams: { initialMaxStreamDataBidiLocal: 100 },
    clientAutoConsume: false,
    serverBuffers: { maxStreamBuffer: 256 },
    limits,
  });
  const stream = watcher.open([{ type: "stream_header", kind: "announce" }, { type: "announce_request", prefix: "", excludeHop: 0 }]);
  const announceAll = (): void => {
    for (const name of NAMES) publisher.write(announce, publisher.writer.encode({ type: "announce", status: "active", suffix: name, hops: [] }));
  };
  const decoded = (): { messages: LiteMessage[]; error: unknown } => {
    const reader = new LiteStreamReader({ role: "opened", kind: "announce", version: LITE_04 });
    for (const chunk of watcher.data.get(stream) ?? []) reader.push(chunk);
    const { messages, status } = reader.drain();
    return { messages, error: status.kind === "error" ? status.error : undefined };
  };
  return { publisher, watcher, stream, announceAll, decoded };
}

describe("control streams under backpressure", () => {
  it("holds announces a watcher has no credit for and sends them whole, in order, once it reads again", () => {
    const { watcher, stream, announceAll, decoded } = scene();
    announceAll();
    // 100 bytes sent, 256 buffered by the framing, the rest waits whole in the session.
    expect(watcher.session.controlBacklog).toBeGreaterThan(0);
    expect(decoded().error).toBeUndefined();
    for (let round = 0; round < 100 && watcher.session.heldBytes > 0; round++) watcher.consumeAll(stream);
    const { messages, error } = decoded();
    expect(error).toBeUndefined();
    expect(messages.map((m) => (m.type === "announce" ? m.suffix : m.type))).toEqual(NAMES);
    expect(watcher.session.controlBacklog).toBe(0);
    expect(watcher.session.closed).toBe(false);
  });

  it("closes a session whose peer leaves more than maxControlBytes unread, with 429", () => {
    const { publisher, watcher, announceAll } = scene({ maxControlBytes: 512 });
    announceAll();
    expect(watcher.closedWith?.code).toBe(RelayCode.TooMany);
    expect(publisher.session.closed).toBe(false);
  });
});
