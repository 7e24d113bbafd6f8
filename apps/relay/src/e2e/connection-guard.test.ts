// The process-level guard: an error escaping one connection's handler is logged and counted, and
// closes that connection only.
import { describe, expect, it, vi } from "vitest";
import { LiteSession } from "../session/session.js";
import { bystanderRoundTrip } from "./bystander.js";
import { e2eSetup, testRelay, until, within } from "./harness.js";
import { rawClient, rawSetup } from "./raw-client.js";

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
});
