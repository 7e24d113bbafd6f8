// Shutdown cannot be held open by a client (issue 17, item 16): after shutdownGraceMs, sockets
// that neither read nor close, and handshakes never finished, are destroyed. Real loopback sockets.
import { connect, type Socket } from "node:net";
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "./harness.test-helpers.js";
import { bytesOf, connectPacket } from "./raw-client.test-helpers.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const fx = serverFixture();
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** A socket that never reads, and never closes its side even when the broker closes its own. */
async function stubborn(port: number, first?: Uint8Array | string): Promise<Socket> {
  const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
  sockets.push(socket);
  socket.on("error", () => undefined);
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  if (first !== undefined) socket.write(first);
  socket.pause();
  return socket;
}

/** Resolves with how `work` settled, or "timeout" after `ms` (a liveness check, not a speed one). */
async function within(ms: number, work: Promise<unknown>): Promise<"done" | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => { resolve("timeout"); }, ms)));
  const result = await Promise.race([work.then(() => "done" as const), timeout]);
  clearTimeout(timer);
  return result;
}

describe("shutdown", () => {
  it("destroys, after shutdownGraceMs, an MQTT client that neither reads nor closes and a WebSocket handshake never finished; a well-behaved client gets DISCONNECT 0x8B", async () => {
    const s = await fx.start((d) => ["--storage", "memory", "--config", `${d}/broker.yaml`], { "broker.yaml": "shutdownGraceMs: 300\n" });
    const mqttPort = s.ports.mqtt ?? 0;
    const polite = await fx.connect(`mqtt://127.0.0.1:${String(mqttPort)}`, { clientId: "polite" });
    const reasons: number[] = [];
    polite.on("disconnect", (packet) => reasons.push(packet.reasonCode ?? -1));

    await stubborn(mqttPort, bytesOf(connectPacket("stubborn")));
    await until(() => s.broker.connections === 2, 5000, "the stubborn client connected");
    await stubborn(s.ports.ws ?? 0, "GET /mqtt HTTP/1.1\r\nHost: x\r\n"); // headers never end
    await stubborn(mqttPort); // never even sends CONNECT

    // Without the deadline the listeners' close waits for these sockets forever.
    expect(await within(WAIT_LIMIT_MS, s.close())).toBe("done");
    fx.closed();
    expect(s.broker.connections).toBe(0);
    expect(reasons).toEqual([0x8b]);
  });

  it("waits up to shutdownGraceMs for clients to go, by default 2 s", async () => {
    const s = await fx.start(["--storage", "memory"]);
    await stubborn(s.ports.mqtt ?? 0, bytesOf(connectPacket("stubborn")));
    await until(() => s.broker.connections === 1, 5000, "the stubborn client connected");
    const started = Date.now();
    expect(await within(WAIT_LIMIT_MS, s.close())).toBe("done");
    fx.closed();
    // The grace period is waited for, not cut short: the stubborn client had its 2 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });
});
