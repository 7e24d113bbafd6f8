// The process-level guard: an error escaping one connection's handler is logged and counted, and
// closes that connection only.
import * as Moq from "@moq/lite";
import { describe, expect, it, vi } from "vitest";
import { LiteSession } from "@handoff/moq-relay";
import { Serving } from "@handoff/moq-relay/testing";
import { bystanderRoundTrip } from "./bystander.test-helpers.js";
import { connect, e2eSetup, livePublisher, payload, testRelay, until, within } from "./harness.test-helpers.js";
import { rawClient, rawSetup } from "./raw-client.test-helpers.js";

const cleanup = e2eSetup();

describe("connection guard", () => {
  it("closes only the connection whose handler threw, counts it, and keeps serving the others", async () => {
    const r = await testRelay(cleanup);
    const other = await rawClient(cleanup, r.ports.http);
    await rawSetup(other);
    const victimClient = await rawClient(cleanup, r.ports.http);
    await until(() => r.sessions.size === 2, 2000, "two sessions");
    const victim = [...r.sessions].at(-1);
    if (victim === undefined) throw new Error("no session");
    const receive = Object.getOwnPropertyDescriptor(LiteSession.prototype, "receive")?.value as (this: LiteSession, bytes: Uint8Array) => void;
    const spy = vi.spyOn(LiteSession.prototype, "receive").mockImplementation(function (this: LiteSession, bytes: Uint8Array) {
      if (this === victim) throw new Error("a bug reached by this peer's bytes");
      receive.call(this, bytes);
    });
    cleanup.push(() => {
      spy.mockRestore();
    });
    const closed = new Promise((resolve) => victimClient.ws.once("close", resolve));
    victimClient.ws.send(Uint8Array.of(0));
    await within(closed, 3000, "the throwing connection closed");
    await until(() => !r.sessions.has(victim), 2000, "its session gone");
    expect(victim.closed).toBe(true);
    expect(await r.metrics.render()).toContain('relay_handler_errors_total{where="receive"} 1');
    expect(r.sessions.size).toBe(1);
    expect(other.ws.readyState).toBe(other.ws.OPEN);
    expect(await bystanderRoundTrip(r.ports.http)).toBe(true);
  });

  it("fails only the subscriber whose fan-out threw: its publisher and the other subscribers keep running", async () => {
    const r = await testRelay(cleanup);
    const broadcast = await livePublisher(cleanup, r);
    const publisher = [...r.sessions][0];
    const victimClient = await connect(r.ports.http, "anon");
    const victim = [...r.sessions].at(-1);
    const otherClient = await connect(r.ports.http, "anon");
    cleanup.push(() => {
      victimClient.close();
      otherClient.close();
    });
    if (publisher === undefined || victim === undefined) throw new Error("no sessions");
    victimClient.consume(Moq.Path.from("live")).subscribe("video", 0);
    const track = otherClient.consume(Moq.Path.from("live")).subscribe("video", 0);
    const req = await within(broadcast.requested(), 3000, "track requested");
    if (!req) throw new Error("no request");
    await until(() => [...r.sessions].filter((s) => s.subscriptions === 1).length === 2, 3000, "both subscribed");
    const startGroup = Object.getOwnPropertyDescriptor(Serving.prototype, "startGroup")?.value as Serving["startGroup"];
    const spy = vi.spyOn(Serving.prototype, "startGroup").mockImplementation(function (this: Serving, ...args) {
      if (this.source === victim) throw new Error("a bug reached while fanning out to this subscriber");
      startGroup.apply(this, args);
    });
    cleanup.push(() => {
      spy.mockRestore();
    });
    for (let g = 0; g < 2; g++) {
      const group = req.track.appendGroup();
      group.writeFrame(payload(g, 0));
      group.close();
      const got = await within(track.nextGroupOrdered(), 3000, `group ${String(g)}`);
      expect(await within(got?.readFrame() ?? Promise.resolve(undefined), 3000, "frame")).toEqual(payload(g, 0));
    }
    await until(() => victim.closed, 3000, "the failing subscriber closed");
    expect(publisher.closed).toBe(false);
    expect(await r.metrics.render()).toContain('relay_handler_errors_total{where="fan-out"} 1');
    expect(await bystanderRoundTrip(r.ports.http)).toBe(true);
  });
});
