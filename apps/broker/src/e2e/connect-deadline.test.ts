// The CONNECT deadline and TCP keepalive on accepted sockets, over real loopback sockets.
import { connect, Socket } from "node:net";
import { encodePacket } from "@handoff/mqtt-router/codec";
import { ManualClock } from "@handoff/seqlog";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AccessControl } from "../auth/access.js";
import { allowAll } from "../auth/access.js";
import { TCP_KEEPALIVE_MS } from "../listeners/socket-transport.js";
import { roundTrip } from "./bystander.test-helpers.js";
import { startBroker, until, type Harness } from "./harness.test-helpers.js";

let h: Harness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  h = undefined;
});

// An enhanced method that answers the first step and then waits for an AUTH that never comes.
const stalling: AccessControl = {
  ...allowAll,
  startEnhanced: () => Promise.resolve({ exchange: { next: () => new Promise(() => undefined) }, step: { kind: "continue", data: new Uint8Array([1]) } }),
};

function rawClient(port: number): { socket: Socket; received: Buffer[] } {
  const socket = connect(port, "127.0.0.1");
  const received: Buffer[] = [];
  socket.on("data", (b: Buffer) => received.push(b));
  socket.on("error", () => undefined);
  return { socket, received };
}

// The broker's clock is the test's: the deadline passes when the test says so, never because a
// loaded machine was slow between accepting a socket and reading its CONNECT.
describe("the CONNECT deadline", () => {
  it("closes a socket that never sends CONNECT, and a bystander is still served", async () => {
    const clock = new ManualClock(Date.now());
    h = await startBroker({ tickMs: 20, clock, protocol: { connectTimeoutMs: 200 } });
    const bystander = await h.client({ clientId: "bystander" });
    const silent = rawClient(h.tcpPort);
    await until(() => h?.broker.connections === 2, 5000, "the silent socket accepted");
    clock.advance(201);
    await until(() => silent.socket.destroyed, 5000, "the silent socket closed");
    expect(Buffer.concat(silent.received).length).toBe(0);
    expect(bystander.connected).toBe(true);
    await roundTrip(bystander);
  });

  it("covers an enhanced authentication exchange the client never finishes", async () => {
    const clock = new ManualClock(Date.now());
    h = await startBroker({ tickMs: 20, clock, protocol: { connectTimeoutMs: 300 }, access: stalling });
    const stalled = rawClient(h.tcpPort);
    const connectBytes = encodePacket(
      { type: "connect", protocolVersion: 5, cleanStart: true, keepAlive: 0, clientId: "stalled", properties: { authenticationMethod: "X-STALL", authenticationData: new Uint8Array([0]) } },
      { protocolVersion: 5 },
    );
    if (!connectBytes.ok) throw new Error(connectBytes.error.message);
    stalled.socket.write(connectBytes.bytes);
    await until(() => stalled.received.length > 0, 5000, "the server's AUTH"); // 0xF0: the server's AUTH continue
    expect(stalled.received[0]?.[0]).toBe(0xf0);
    clock.advance(301);
    await until(() => stalled.socket.destroyed, 5000, "the stalled socket closed");
    await until(() => h?.broker.connections === 0, 5000, "the server to let go of the connection");
  });
});

describe("accepted sockets", () => {
  it("have TCP keepalive on", async () => {
    const keepAlive = vi.spyOn(Socket.prototype, "setKeepAlive");
    h = await startBroker();
    await h.client({ clientId: "kept" });
    expect(keepAlive).toHaveBeenCalledWith(true, TCP_KEEPALIVE_MS);
  });
});
