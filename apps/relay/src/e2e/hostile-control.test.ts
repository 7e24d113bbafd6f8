// A watcher that stops reading its announce stream while announces pile up: the relay holds
// them and sends every message whole once the watcher reads again, never a truncated one.
import { LITE_04, LiteStreamReader, LiteStreamWriter, type LiteMessage } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { bystanderRoundTrip } from "./bystander.test-helpers.js";
import type { SessionLimits } from "@handoff/moq-relay";
import { e2eSetup, testRelay, until } from "./harness.test-helpers.js";
import { rawTcpClient, type RawTcpClient } from "./raw-client.test-helpers.js";

const cleanup = e2eSetup();

/** Writes `bytes` on stream `id`, waiting for the client's framing to take each part. */
async function writeAll(c: RawTcpClient, id: number, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length; ) {
    const r = c.framing.write(id, bytes.subarray(at, at + 65_536));
    if (!r.ok) throw new Error(`write refused: ${r.reason}`);
    at += r.accepted;
    c.flush();
    await until(() => c.framing.bufferedBytes < 256 * 1024, 5000, "publisher's writes taken");
  }
}

const SUFFIX = `a-broadcast-with-a-long-name-${"x".repeat(70)}`;
const writer = new LiteStreamWriter(LITE_04);

/**
 * A relay with `limits`, a raw TCP watcher of every announce that stopped reading (its socket
 * paused, a 16 KiB window), and a publisher that toggled one broadcast `toggles` times and ended
 * its announces; resolves once the relay took every one of them (it FINs back).
 */
async function flood(toggles: number, limits: Partial<SessionLimits> = {}) {
  const r = await testRelay(cleanup, undefined, { limits });
  const port = r.ports.tcp;
  if (port === undefined) throw new Error("no tcp port");
  const watcher = await rawTcpClient(cleanup, port, "moq-lite-04", { initialMaxStreamDataBidiLocal: 16_384, initialMaxData: 65_536 });
  const watching = watcher.framing.openStream(true);
  if (!watching.ok) throw new Error("no stream");
  watcher.framing.write(watching.streamId, writer.encodeAll([{ type: "stream_header", kind: "announce" }, { type: "announce_request", prefix: "", excludeHop: 0 }]));
  watcher.flush();
  watcher.socket.pause();
  await until(() => r.sessions.size === 1 && [...r.sessions][0]?.version !== undefined, 3000, "watcher session");
  const watcherSession = [...r.sessions][0];
  if (watcherSession === undefined) throw new Error("no session");
  const publisher = await rawTcpClient(cleanup, port);
  await until(() => publisher.events.some((e) => e.kind === "stream-opened" && e.bidi), 3000, "the relay asks the publisher for announces");
  const asked = publisher.events.find((e) => e.kind === "stream-opened" && e.bidi);
  if (asked?.kind !== "stream-opened") throw new Error("no announce request");
  const messages: LiteMessage[] = [];
  for (let i = 0; i < toggles; i++) {
    messages.push({ type: "announce", status: "active", suffix: SUFFIX, hops: [] }, { type: "announce", status: "ended", suffix: SUFFIX, hops: [] });
  }
  await writeAll(publisher, asked.streamId, writer.encodeAll(messages));
  publisher.framing.write(asked.streamId, new Uint8Array(0), true);
  publisher.flush();
  // The relay answers the end of the announces with its own FIN: by then it took every one.
  await until(() => publisher.events.some((e) => e.kind === "stream-data" && e.streamId === asked.streamId && e.fin), 10_000, "every announce taken");
  return { r, watcher, watching: watching.streamId, watcherSession };
}

describe("control streams of a peer that stops reading", () => {
  it("delivers every announce whole and in order once the watcher reads again, and keeps serving", async () => {
    // 15,000 announce changes of ~110 bytes each reach the watcher: past the framing's 1 MiB
    // stream buffer, so the relay's writes come up short and the rest must wait.
    const toggles = 7500;
    const suffix = SUFFIX;
    const { r, watcher, watching, watcherSession } = await flood(toggles);
    const waiting = watcherSession.controlBacklog;

    watcher.socket.resume();
    // Decoded as it arrives (re-reading 1.6 MB on every poll would stall this process, relay included).
    const reader = new LiteStreamReader({ role: "opened", kind: "announce", version: LITE_04 });
    let taken = 0;
    let count = 0;
    let wrong = 0;
    const decode = (): { count: number; error: unknown; wrong: number } => {
      const chunks = watcher.received(watching);
      for (; taken < chunks.length; taken++) reader.push(chunks[taken] ?? new Uint8Array(0));
      const { messages: got, status } = reader.drain();
      for (const m of got) {
        if (m.type !== "announce" || m.suffix !== suffix || m.status !== (count % 2 === 0 ? "active" : "ended")) wrong += 1;
        count += 1;
      }
      return { count, error: status.kind === "error" ? status.error : undefined, wrong };
    };
    await until(() => {
      const now = decode();
      return now.count === 2 * toggles || now.error !== undefined;
    }, 20_000, () => `all announces read (${JSON.stringify(decode())}, held ${String(watcherSession.heldBytes)})`);
    expect(decode()).toEqual({ count: 2 * toggles, error: undefined, wrong: 0 });
    // The relay's writes did come up short: more than its framing buffers waited in the session.
    expect(waiting).toBeGreaterThan(0);
    expect(watcherSession.closed).toBe(false);
    expect(watcherSession.controlBacklog).toBe(0);
    expect(await bystanderRoundTrip(r.ports.http)).toBe(true);
  });

  it("closes a watcher that leaves more than maxControlBytes unread with 429, and keeps serving the others", async () => {
    // 1.3 MB of announces: the framing buffers 1 MiB, and past 64 KiB more waiting the relay gives up.
    const { r, watcherSession } = await flood(6000, { maxControlBytes: 64 * 1024 });
    await until(() => watcherSession.closed, 3000, "the watcher's session closed");
    expect(r.sessions.has(watcherSession)).toBe(false);
    expect(await bystanderRoundTrip(r.ports.http)).toBe(true);
  });
});
