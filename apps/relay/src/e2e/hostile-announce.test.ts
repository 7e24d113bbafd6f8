// Announce paths longer than the wire carries (32 parts): refused where they enter, and an
// announce that cannot be encoded resets only the stream it was meant for.
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import * as Moq from "@moq/lite";
import { LITE_02, LiteStreamWriter } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import type { RouteSource } from "@handoff/moq-relay";
import { bystanderRoundTrip } from "./bystander.test-helpers.js";
import { connect, e2eSetup, testRelay, until, within } from "./harness.test-helpers.js";
import { rawClient, rawSetup } from "./raw-client.test-helpers.js";

const cleanup = e2eSetup();

function parts(n: number, tag: string): string {
  return Array.from({ length: n }, (_, i) => `${tag}${String(i)}`).join("/");
}

const nowhere: RouteSource = { id: 999, subscribeUpstream: () => undefined };

describe("long announce paths", () => {
  it("does not take a broadcast whose root plus suffix passes 32 parts, and a watcher at the top still gets the others", async () => {
    const r = await testRelay(cleanup);
    const watcher = await connect(r.ports.http, "");
    cleanup.push(() => {
      watcher.close();
    });
    const announced = watcher.announced(Moq.Path.from(""));
    const deep = await connect(r.ports.http, parts(20, "r"));
    cleanup.push(() => {
      deep.close();
    });
    deep.publish(Moq.Path.from(parts(20, "s")), new Moq.Broadcast());
    await until(() => r.sessions.size === 2, 2000, "both sessions");
    // Its announce reached the relay and was refused (the counter), and nothing crashed.
    await expect.poll(() => r.metrics.render(), { timeout: WAIT_LIMIT_MS }).toContain('relay_announces_refused_total{reason="path-parts"} 1');
    expect(r.origin.broadcasts).toBe(0);
    expect(await bystanderRoundTrip(r.ports.http, "")).toBe(true);
    const first = await within(announced.next(), 2000, "watcher sees the bystander");
    expect(first?.path).toMatch(/^bystander-/);
  });

  it("resets only the announce stream that cannot carry a path, with the codec's encode code", async () => {
    const r = await testRelay(cleanup);
    const c = await rawClient(cleanup, r.ports.http, "");
    await rawSetup(c);
    const open = c.framing.openStream(true);
    if (!open.ok) throw new Error("no stream");
    const writer = new LiteStreamWriter(LITE_02);
    c.framing.write(open.streamId, writer.encodeAll([{ type: "stream_header", kind: "announce" }, { type: "announce_request", prefix: "", excludeHop: 0 }]));
    c.flush();
    await until(() => c.events.some((e) => e.kind === "stream-data" && e.streamId === open.streamId), 2000, "initial announces");
    // A path no session could announce, put in the routing table directly: the live update fails to encode.
    r.origin.announce(parts(40, "x"), nowhere, []);
    await until(() => c.events.some((e) => e.kind === "stream-reset" && e.streamId === open.streamId), 2000, "reset");
    expect(c.events.find((e) => e.kind === "stream-reset" && e.streamId === open.streamId)).toMatchObject({ code: 18 });
    expect(r.sessions.size).toBe(1);
    expect(await bystanderRoundTrip(r.ports.http)).toBe(true);
  });

  it("resets an announce stream whose initial set cannot be encoded", async () => {
    const r = await testRelay(cleanup);
    r.origin.announce(parts(40, "x"), nowhere, []);
    const c = await rawClient(cleanup, r.ports.http, "");
    await rawSetup(c);
    const open = c.framing.openStream(true);
    if (!open.ok) throw new Error("no stream");
    c.framing.write(
      open.streamId,
      new LiteStreamWriter(LITE_02).encodeAll([{ type: "stream_header", kind: "announce" }, { type: "announce_request", prefix: "", excludeHop: 0 }]),
    );
    c.flush();
    await until(() => c.events.some((e) => e.kind === "stream-reset" && e.streamId === open.streamId), 2000, "reset");
    expect(c.events.find((e) => e.kind === "stream-reset" && e.streamId === open.streamId)).toMatchObject({ code: 18 });
    expect(r.sessions.size).toBe(1);
  });
});
