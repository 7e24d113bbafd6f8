import { describe, expect, it } from "vitest";
import { createFraming } from "./index.js";
import { closedEvent, drainFrames, feed, paramsFrame } from "./framing-session.test-helpers.js";

function ready(ours: number, peer: number) {
  const s = createFraming("qmux-00", { role: "server", params: { maxIdleTimeout: ours } });
  feed(s, paramsFrame({ maxIdleTimeout: peer }));
  drainFrames(s);
  return s;
}

describe("timeouts driven by tick", () => {
  it("close after the handshake timeout when the peer never sends its parameters", () => {
    const s = createFraming("qmux-00", { role: "server", handshakeTimeoutMs: 1000 });
    s.tick(5000);
    s.tick(5999);
    expect(s.isClosed).toBe(false);
    s.tick(6000);
    expect(closedEvent(s.poll())).toMatchObject({ reason: "handshake timeout", byPeer: false, transport: true });
  });

  it("close silently after the smaller of the two idle timeouts", () => {
    const s = ready(30_000, 5_000);
    s.tick(0);
    s.tick(4_999);
    expect(s.isClosed).toBe(false);
    s.tick(5_000);
    const events = s.poll();
    expect(closedEvent(events)).toMatchObject({ reason: "idle timeout" });
    expect(events.some((e) => e.kind === "send")).toBe(false);
  });

  it("use our idle timeout when the peer advertises none (@moq/qmux 0.0.6 sends none)", () => {
    const s = ready(3_000, 0);
    s.tick(0);
    s.tick(3_000);
    expect(s.isClosed).toBe(true);
  });

  it("postpone the idle close on inbound data or a touch", () => {
    const s = ready(1_000, 0);
    s.tick(0);
    s.tick(900);
    feed(s, { type: "padding" });
    s.tick(1_500);
    s.touch();
    s.tick(2_400);
    s.tick(3_300);
    expect(s.isClosed).toBe(false);
    s.tick(3_400);
    expect(s.isClosed).toBe(true);
  });

  it("never idle-close when neither side advertises a timeout", () => {
    const s = ready(0, 0);
    s.tick(0);
    s.tick(10 ** 9);
    expect(s.isClosed).toBe(false);
  });
});
