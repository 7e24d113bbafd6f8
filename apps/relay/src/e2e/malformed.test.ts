import * as Moq from "@moq/lite";
import { describe, expect, it } from "vitest";
import { connect, e2eSetup, livePublisher, payload, testRelay, until, within } from "./harness.test-helpers.js";
import { rawClient, rawSetup } from "./raw-client.test-helpers.js";

const cleanup = e2eSetup();

describe("malformed input", () => {
  it("resets a stream with an unknown type with the codec's code and keeps the session", async () => {
    const r = await testRelay(cleanup);
    const c = await rawClient(cleanup, r.ports.http);
    await rawSetup(c);
    const open = c.framing.openStream(true);
    if (!open.ok) throw new Error("no stream");
    c.framing.write(open.streamId, Uint8Array.of(0x3f, 1, 2, 3));
    c.flush();
    await until(() => c.events.some((e) => e.kind === "stream-reset" && e.streamId === open.streamId), 2000, "reset");
    const reset = c.events.find((e) => e.kind === "stream-reset" && e.streamId === open.streamId);
    expect(reset).toMatchObject({ code: 5 });
    expect(r.sessions.size).toBe(1);
  });

  it("closes a session whose SETUP is garbage", async () => {
    const r = await testRelay(cleanup);
    const c = await rawClient(cleanup, r.ports.http);
    const open = c.framing.openStream(true);
    if (!open.ok) throw new Error("no stream");
    c.framing.write(open.streamId, Uint8Array.of(0x20, 0x00, 0x02, 0x05, 0x01));
    c.flush();
    await until(() => c.events.some((e) => e.kind === "closed"), 2000, "close");
    await until(() => r.sessions.size === 0, 2000, "session gone");
  });

  it("closes a session that sends an invalid frame, and keeps serving others", async () => {
    const r = await testRelay(cleanup);
    const broadcast = await livePublisher(cleanup, r);

    const c = await rawClient(cleanup, r.ports.http);
    const closed = new Promise((resolve) => c.ws.once("close", resolve));
    c.ws.send(Uint8Array.of(0x77, 0x01));
    await within(closed, 2000, "bad client closed");

    const sub = await connect(r.ports.http, "anon");
    cleanup.push(() => {
      sub.close();
    });
    const track = sub.consume(Moq.Path.from("live")).subscribe("video", 0);
    const req = await within(broadcast.requested(), 2000, "track requested");
    if (!req) throw new Error("no request");
    await until(() => [...r.sessions].some((s) => s.subscriptions === 1), 2000, "subscribed");
    const group = req.track.appendGroup();
    group.writeFrame(payload(0, 0));
    group.close();
    const got = await within(track.nextGroupOrdered(), 2000, "group");
    expect(await got?.readFrame()).toEqual(payload(0, 0));
  });
});
