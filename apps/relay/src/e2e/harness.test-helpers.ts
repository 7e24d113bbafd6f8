import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { installWithResolvers, waitLimit } from "@handoff/test-kit";
import * as Moq from "@moq/lite";
import { pino } from "pino";
import { afterEach, beforeAll, vi } from "vitest";
import WebSocket from "ws";
import type { AuthConfig } from "../auth/jwt.js";
import { startRelay, type Relay } from "../server/relay.js";
import type { RelayOptions } from "../server/relay-options.js";

/** What @moq/lite 0.2.2 needs in Node 20: a global WebSocket and two ES2024/2025 built-ins. */
export function installPolyfills(): void {
  const g = globalThis as { WebSocket?: unknown };
  g.WebSocket ??= WebSocket;
  installWithResolvers();
  const S = Set.prototype as unknown as { difference?: unknown };
  S.difference ??= function difference<T>(this: Set<T>, other: Set<T>): Set<T> {
    const out = new Set<T>();
    for (const v of this) if (!other.has(v)) out.add(v);
    return out;
  };
}

/**
 * The setup every e2e file shares: polyfills and a silenced console (@moq/lite logs every
 * stream) before all tests, and the cleanups pushed on the returned list run in reverse after
 * each test.
 */
export function e2eSetup(): (() => unknown)[] {
  beforeAll(() => {
    installPolyfills();
    for (const level of ["debug", "log", "warn", "info", "error"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
  });
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  return cleanup;
}

/**
 * Starts a relay on 127.0.0.1 port 0, silent, closed by `cleanup` after the test; `extra`
 * overrides options (cluster peers, metrics port). `HANDOFF_TEST_LOG=debug` shows its logs.
 */
export async function testRelay(cleanup: (() => unknown)[], auth?: Partial<AuthConfig>, extra: Partial<RelayOptions> = {}): Promise<Relay> {
  const relay = await startRelay(
    {
      host: "127.0.0.1",
      port: 0,
      tcpPort: 0,
      metricsPort: undefined,
      auth: { key: undefined, publicPublish: [], publicSubscribe: [], ...auth },
      tcpAccess: "trusted",
      limits: {},
      // Tests leave raw sockets open: a short grace keeps their cleanup quick.
      closeGraceMs: 200,
      ...extra,
    },
    pino({ level: process.env["HANDOFF_TEST_LOG"] ?? "silent" }),
  );
  cleanup.push(() => relay.close());
  return relay;
}

/**
 * Connects an anonymous @moq/lite publisher of the broadcast `live` (closed by `cleanup`) and
 * waits until the relay can route it.
 */
export async function livePublisher(cleanup: (() => unknown)[], relay: Relay): Promise<Moq.Broadcast> {
  const conn = await connect(relay.ports.http, "anon");
  cleanup.push(() => {
    conn.close();
  });
  const broadcast = new Moq.Broadcast();
  conn.publish(Moq.Path.from("live"), broadcast);
  await until(() => relay.origin.broadcasts === 1, 2000, "routable");
  return broadcast;
}

/**
 * Publishes the broadcast `name` on `conn` and collects every track the relay requests of it, in
 * request order, for the test to write into.
 */
export function trackPublisher(conn: Moq.Connection.Established, name: string): { broadcast: Moq.Broadcast; tracks: Moq.Track[] } {
  const broadcast = new Moq.Broadcast();
  const tracks: Moq.Track[] = [];
  conn.publish(Moq.Path.from(name), broadcast);
  void (async () => {
    for (;;) {
      const req = await broadcast.requested();
      if (!req) break;
      tracks.push(req.track);
    }
  })();
  return { broadcast, tracks };
}

/** `connect` with the transport typed loosely: Node's lib has no WebTransport type. */
const connectWith = Moq.Connection.connect as (url: URL, props: { transport: unknown }) => Promise<Moq.Connection.Established>;

interface QmuxSession {
  readonly protocol: string;
  readonly ready: Promise<void>;
}
type QmuxCtor = new (url: string | URL, options?: { protocols?: string[] }) => QmuxSession;

/** @moq/qmux, the transport @moq/lite uses (a dependency of it, not of the relay). */
async function qmux(): Promise<QmuxCtor> {
  const require = createRequire(createRequire(import.meta.url).resolve("@moq/lite"));
  const mod = (await import(pathToFileURL(require.resolve("@moq/qmux")).href)) as { default: QmuxCtor };
  return mod.default;
}

/**
 * Connects @moq/lite to the relay: the client's default path (bare `qmux-00` → in-band SETUP →
 * lite-02) or an explicit qmux transport offering `moq-lite-04`. Bounded in time: a refused
 * handshake never settles inside the client.
 */
export async function connect(port: number, path: string, version: "default" | "lite-04" = "default", query = ""): Promise<Moq.Connection.Established> {
  const url = new URL(`http://127.0.0.1:${String(port)}/${path}${query}`);
  const connecting =
    version === "default"
      ? Moq.Connection.connect(url)
      : qmux().then(async (Session) => {
          const transport = new Session(url, { protocols: ["moq-lite-04"] });
          // The client reads `protocol` at once: it must be known (handshake done) first.
          await transport.ready;
          return connectWith(url, { transport });
        });
  return within(connecting, 3000, `connect ${url.href}`);
}

/**
 * Rejects when `promise` does not settle in time. `ms` is how long it takes on an idle machine;
 * the limit is test-kit's safety net (waitLimit), so a loaded machine does not fail it.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const limit = waitLimit(ms);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what}: no answer within ${String(limit)} ms`));
    }, limit);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits until `check` holds, polling every 10 ms. `ms` is how long it takes on an idle machine; the
 * wait gives up only at test-kit's safety net (waitLimit).
 */
export async function until(check: () => boolean, ms: number, what: string | (() => string)): Promise<void> {
  const limit = waitLimit(ms);
  const deadline = Date.now() + limit;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${typeof what === "string" ? what : what()}: not reached within ${String(limit)} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Calls `probe` every 20 ms until `arrived` holds: a datagram sent before its path is up is
 * dropped, as datagrams may be, so a test sends probes until one lands. Gives up at test-kit's
 * safety net (waitLimit), never after a count of probes a loaded machine may need more of.
 */
export async function probeUntil(probe: () => void, arrived: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + waitLimit(0);
  while (!arrived()) {
    if (Date.now() > deadline) throw new Error(`${what}: none arrived within ${String(waitLimit(0))} ms`);
    probe();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The payload of frame `f` of group `g`, so a test can check every byte arrived. */
export function payload(g: number, f: number): Uint8Array {
  return new TextEncoder().encode(`group ${String(g)} frame ${String(f)} ${"x".repeat((g * 7 + f) % 50)}`);
}
