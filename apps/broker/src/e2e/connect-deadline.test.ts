// The CONNECT deadline and TCP keepalive on accepted sockets, over real loopback sockets.
import { connect, Socket } from "node:net";
import { encodePacket } from "@handoff/mqtt-router/codec";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AccessControl } from "../mqtt/access.js";
import { allowAll } from "../mqtt/access.js";
import { TCP_KEEPALIVE_MS } from "../listeners/socket-transport.js";
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

function rawClient(port: number): { socket: Socket; closed: Promise<void>; received: Buffer[] } {
  const socket = connect(port, "127.0.0.1");
  const received: Buffer[] = [];
  socket.on("data", (b: Buffer) => received.push(b));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.on("close", () => { resolve(); }));
  return { socket, closed, received };
}

describe("the CONNECT deadline", () => {
  it("closes a socket that never sends CONNECT, and a bystander is still served", async () => {
    h = await startBroker({ tickMs: 20, protocol: { connectTimeoutMs: 200 } });
    const silent = rawClient(h.tcpPort);
    await silent.closed;
    expect(Buffer.concat(silent.received).length).toBe(0);
    const bystander = await h.client({ clientId: "bystander" });
    expect(bystander.connected).toBe(true);
  });

  it("covers an enhanced authentication exchange the client never finishes", async () => {
    h = await startBroker({ tickMs: 20, protocol: { connectTimeoutMs: 300 }, access: stalling });
    const stalled = rawClient(h.tcpPort);
    const connectBytes = encodePacket(
      { type: "connect", protocolVersion: 5, cleanStart: true, keepAlive: 0, clientId: "stalled", properties: { authenticationMethod: "X-STALL", authenticationData: new Uint8Array([0]) } },
      { protocolVersion: 5 },
    );
    if (!connectBytes.ok) throw new Error(connectBytes.error.message);
    stalled.socket.write(connectBytes.bytes);
    await until(() => stalled.received.length > 0, 5000, "the server's AUTH"); // 0xF0: the server's AUTH continue
    expect(stalled.received[0]?.[0]).toBe(0xf0);
    await stalled.closed;
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
