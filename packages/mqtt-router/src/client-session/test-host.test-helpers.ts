// Test support: a host that records what a ClientSession does, and a store whose commits the
// test completes (or fails) when it chooses.
import { ManualClock } from "@handoff/seqlog";
import { decodePacket } from "../codec/decode.js";
import type { ConnectPacket, Packet, ProtocolVersion, QoS } from "../codec/packet.js";
import type { ClosedEffect, ConnectRequestEffect } from "../protocol/effects.js";
import { bytesOf, connectPacket } from "../protocol/test-client.test-helpers.js";
import { Router } from "../router/router.js";
import { ClientSession } from "./client-session.js";
import type { ClientSessionHost, Commits, Hold } from "./host.js";

// What the tests do not look at.
const noop = (): void => undefined;

/** A store whose pending batch commits only when the test says so (one promise per batch). */
export class ManualCommits implements Commits {
  admitting = true;
  /** While true, every flush fails at once (a store that is closed, or broken for good). */
  failingAtOnce = false;
  #batch: { promise: Promise<void>; resolve: () => void; reject: (err: unknown) => void } | undefined;

  flush(): Promise<void> {
    if (this.failingAtOnce) return Promise.reject(new Error("store closed"));
    if (this.#batch === undefined) {
      let resolve = (): void => undefined;
      let reject = (_err: unknown): void => undefined;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.#batch = { promise, resolve, reject };
    }
    return this.#batch.promise;
  }

  /** Whether a flush waits for a commit now. */
  get pending(): boolean {
    return this.#batch !== undefined;
  }

  /** Completes the pending batch and lets what waited for it run. */
  async commit(): Promise<void> {
    this.#batch?.resolve();
    this.#batch = undefined;
    await settle();
  }

  /** Fails the pending batch. */
  async fail(): Promise<void> {
    this.#batch?.reject(new Error("disk full"));
    this.#batch = undefined;
    await settle();
  }
}

/** Lets every promise chain that can run now run (no timers involved). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 50; i += 1) await Promise.resolve();
}

/** A host that admits every CONNECT and records, in one log shared by all hosts of a test, what its session did. */
export class TestHost implements ClientSessionHost {
  readonly packets: Packet[] = [];
  readonly releasedIds: string[] = [];
  closes = 0;
  buffered = 0;
  session: ClientSession<TestHost> | undefined;

  constructor(
    readonly name: string,
    readonly version: ProtocolVersion,
    readonly log: string[],
  ) {}

  send(bytes: Uint8Array): void {
    const d = decodePacket(bytes, { protocolVersion: this.version });
    if (!d.ok) throw new Error(`session sent undecodable bytes: ${d.error.message}`);
    this.packets.push(d.packet);
    const p = d.packet;
    const detail = p.type === "publish" ? ` ${p.topic}` : p.type === "disconnect" ? ` ${String(p.reasonCode)}` : "";
    this.log.push(`${this.name}:${p.type}${detail}`);
  }
  close(): void {
    this.closes += 1;
    this.log.push(`${this.name}:close`);
  }
  readonly pauseReading = noop;
  readonly resumeReading = noop;
  readonly resumeInputLater = noop;
  connectRequested(request: ConnectRequestEffect): Promise<void> {
    const session = this.session;
    if (session === undefined) throw new Error("TestHost.session not set");
    return session.admit(request, {});
  }
  authenticate(): Promise<void> | undefined {
    return undefined;
  }
  /** The authorization of a PUBLISH; a test replaces it (an async hook's promise). */
  mayPublish: (topic: string) => boolean | Promise<boolean> = () => true;
  /** The authorization of a SUBSCRIBE's filter; a test replaces it. */
  maySubscribe: (filter: string) => boolean | Promise<boolean> = () => true;
  hold(): Hold | undefined {
    return undefined;
  }
  readonly deliveryProgressed = noop;
  released(clientId: string): void {
    this.releasedIds.push(clientId);
  }
  encoded(): undefined {
    return undefined;
  }
  readonly received: (qos: QoS) => void = noop;
  readonly sent: (qos: QoS) => void = noop;
  readonly deliveryRefused = noop;
  readonly retainNotStored = noop;
  readonly refusedForStorage = noop;
  readonly subscriptionRefused = noop;
  readonly sessionLimitReached = noop;
  takenOver(clientId: string): void {
    this.log.push(`${this.name}:took over ${clientId}`);
  }
  readonly connected = noop;
  readonly commitFailed = noop;
  failed(err: unknown): void {
    throw err;
  }
  closed(effect: ClosedEffect): void {
    this.log.push(`${this.name}:closed ${effect.cause}`);
  }
}

/** A router, a manual store and clients of sessions over them. */
export class World {
  readonly clock = new ManualClock(1_000);
  readonly commits = new ManualCommits();
  readonly router = new Router<ClientSession<TestHost>>({ clock: this.clock });
  readonly log: string[] = [];
  /** The sessions' `loadSession` option, if set before they are made. */
  loadSession: ((clientId: string) => Promise<void>) | undefined;
  /** Whether the sessions made from now on commit to the manual store (false: no durable store). */
  durable = true;
  /** The server's Receive Maximum for the sessions made from now on. */
  receiveMaximum: number | undefined;

  /** A session speaking for one client of `version`, as its host sees it. */
  client(name: string, version: ProtocolVersion = 5): { host: TestHost; session: ClientSession<TestHost>; send: (...packets: Packet[]) => void } {
    const host = new TestHost(name, version, this.log);
    const session = new ClientSession(this.router, host, {
      clock: this.clock,
      protocol: { clock: this.clock, generateClientId: () => `auto-${name}`, ...(this.receiveMaximum === undefined ? {} : { receiveMaximum: this.receiveMaximum }) },
      commits: this.durable ? this.commits : undefined,
      qos0HighWaterBytes: 64 * 1024,
      keepAlive: { min: 0, max: 65_535 },
      outboundInflight: 100,
      ...(this.loadSession === undefined ? {} : { loadSession: this.loadSession }),
    });
    host.session = session;
    const send = (...packets: Packet[]): void => {
      for (const p of packets) session.receive(bytesOf(p, version));
    };
    return { host, session, send };
  }

  /** A client connected and past its CONNACK (the claim committed). */
  async connected(name: string, overrides: Partial<ConnectPacket> = {}): Promise<ReturnType<World["client"]>> {
    const c = this.client(name);
    c.send(connectPacket(5, { clientId: name, ...overrides }));
    await settle();
    if (this.durable) await this.commits.commit();
    return c;
  }
}
