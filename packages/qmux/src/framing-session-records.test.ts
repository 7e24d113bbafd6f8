// qmux-01/02 over WebSocket: small frames leave together as one record (one message); qmux-00
// keeps one frame per message, which is all the qmux-00 reader of `@moq/qmux` 0.0.x takes.
import { describe, expect, it } from "vitest";
import type { QmuxVersion } from "./events.js";
import { pump, streamBytes } from "./framing-session.test-helpers.js";
import { createFraming } from "./index.js";
import { qmuxMessageWire } from "./wire.js";

function readyPair(kind: QmuxVersion) {
  const client = createFraming(kind, { role: "client" });
  const server = createFraming(kind, { role: "server" });
  pump(client, server);
  return { client, server };
}

// Five small uni streams, each with a FIN: the messages the server sends, and the frames in them.
function fiveSmallStreams(kind: QmuxVersion) {
  const { client, server } = readyPair(kind);
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) {
    const open = server.openStream(false);
    if (!open.ok) throw new Error("open refused");
    server.write(open.streamId, Uint8Array.of(i, i, i), true);
    ids.push(open.streamId);
  }
  const messages = server.poll().flatMap((e) => (e.kind === "send" ? [e.bytes] : []));
  const reader = qmuxMessageWire(16_382, kind);
  const frames = messages.flatMap((m) => reader.push(m).frames);
  return { client, messages, frames, ids };
}

describe("outbound records", () => {
  it.each<QmuxVersion>(["qmux-01", "qmux-02"])("%s sends several small frames as one message, read back in order", (kind) => {
    const { client, messages, frames, ids } = fiveSmallStreams(kind);
    expect(frames.filter((f) => f.type === "stream")).toHaveLength(5);
    expect(messages).toHaveLength(1);
    for (const m of messages) client.receive(m);
    const seen = client.poll();
    expect(ids.map((id) => streamBytes(seen, id))).toEqual(ids.map((_, i) => ({ bytes: Uint8Array.of(i, i, i), fin: true })));
  });

  it("qmux-00 sends one frame per message", () => {
    const { messages, frames } = fiveSmallStreams("qmux-00");
    expect(messages).toHaveLength(frames.length);
    expect(frames.filter((f) => f.type === "stream")).toHaveLength(5);
  });
});
