import { LITE_05, type LiteMessage, LiteStreamReader, type LiteVersion, type Setup } from "@handoff/moq-resume/lite";
import type { Permissions } from "../rules/permissions.js";
import type { Origin } from "../origin/origin.js";
import type { QmuxVersion, StreamId, TransportParams } from "@handoff/qmux";
import { TestPeer } from "./test-peer.test-helpers.js";

/** A client SETUP with no parameters, or the ones given (test helper). */
export function clientSetup(fields: Partial<Omit<Setup, "type">> = {}): Setup {
  return { type: "setup", probe: "none", path: undefined, role: "both", cost: undefined, origin: undefined, unknown: [], ...fields };
}

/**
 * A {@link TestPeer} speaking lite-05 (or `version`, lite-05 or later) that has sent its SETUP
 * (unless `setup` is null), so the relay serves its requests (test helper).
 */
export function lite05Peer(
  origin: Origin,
  options: {
    readonly id?: number;
    readonly permissions?: Permissions;
    readonly setup?: Setup | null;
    readonly clientParams?: Partial<TransportParams>;
    readonly version?: LiteVersion;
    readonly cost?: number;
    readonly qmux?: QmuxVersion;
  } = {},
): TestPeer {
  const peer = new TestPeer(origin, {
    version: options.version ?? LITE_05,
    ...(options.cost === undefined ? {} : { cost: options.cost }),
    ...(options.qmux === undefined ? {} : { qmux: options.qmux }),
    ...(options.clientParams === undefined ? {} : { clientParams: options.clientParams }),
    ...(options.id === undefined ? {} : { id: options.id }),
    ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
  });
  if (options.setup !== null) sendSetup(peer, options.setup ?? clientSetup());
  return peer;
}

/** Sends `setup` on a fresh uni stream, then FIN (test helper). */
export function sendSetup(peer: TestPeer, setup: Setup): StreamId {
  const r = peer.framing.openStream(false);
  if (!r.ok) throw new Error("no uni stream");
  peer.write(r.streamId, peer.writer.encodeAll([{ type: "stream_header", kind: "setup" }, setup]), true);
  return r.streamId;
}

/** Everything the relay wrote on a uni stream it opened, decoded (test helper). */
export function uniMessages(peer: TestPeer, id: StreamId): LiteMessage[] {
  const reader = new LiteStreamReader({ role: "accepted-uni", version: LITE_05 });
  for (const chunk of peer.data.get(id) ?? []) reader.push(chunk);
  return reader.drain().messages;
}

/** Whether the relay FINed stream `id`. */
export function finished(peer: TestPeer, id: StreamId): boolean {
  return peer.events.some((e) => e.kind === "stream-data" && e.streamId === id && e.fin);
}
