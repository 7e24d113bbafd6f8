// Test-only: a real router with fake connections behind the AdminBroker interface, a log that
// records its lines, and a way to ask the admin routes as the HTTP server would.
import { Router, type ProtocolVersion, type QoS } from "@handoff/mqtt-router";
import { ManualClock } from "@handoff/seqlog";
import { pino } from "pino";
import type { HttpReply } from "../http/index.js";
import type { ConnectionInfo } from "../mqtt/connection-info.js";
import type { AdminBroker } from "./actions.js";
import { createAdminRoutes, type AdminOptions } from "./routes.js";
import type { StatsJson } from "./stats.js";

export const TOKEN = "test-admin-token-0123456789";
export const START = Date.parse("2030-01-02T03:04:05.000Z");

export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

export interface World {
  readonly router: Router;
  readonly clock: ManualClock;
  readonly broker: AdminBroker;
  readonly lines: LogLine[];
  /** Connects and binds `clientId` (MQTT 5 unless told), as an accepted connection would. */
  connect(clientId: string, options?: { readonly protocolVersion?: ProtocolVersion; readonly expiry?: number; readonly receiveMaximum?: number }): void;
  /** The client's connection closes (the session stays, per its expiry). */
  disconnect(clientId: string): void;
  subscribe(clientId: string, filter: string, qos?: QoS): void;
  publish(topic: string, payload: string, options?: { readonly retain?: boolean; readonly qos?: QoS }): void;
  /** What `kick` does (default: the connection closes at once). */
  onKick: (clientId: string) => void;
  /** What `committed` returns (default: resolved). */
  commit: () => Promise<void>;
  /** Asks the routes; `token` null sends no Authorization header. */
  ask(method: string, target: string, token?: string | null): Promise<HttpReply | undefined>;
  /** Asks and parses the JSON body. */
  askJson(method: string, target: string, token?: string | null): Promise<{ readonly status: number; readonly body: unknown; readonly headers: Readonly<Record<string, string>> }>;
}

export function world(options: Partial<Pick<AdminOptions, "token" | "disconnectWaitMs" | "stats">> = {}): World {
  const clock = new ManualClock(START);
  const router = new Router({ clock });
  const connections = new Map<string, { readonly info: ConnectionInfo; readonly generation: number }>();
  const lines: LogLine[] = [];
  const log = pino({ level: "info" }, { write: (text: string) => lines.push(JSON.parse(text) as LogLine) });
  const w: World = {
    router,
    clock,
    lines,
    broker: {
      router,
      clients: () => [...connections.values()].map((c) => c.info),
      client: (clientId) => connections.get(clientId)?.info,
      kick: (clientId) => {
        if (!connections.has(clientId)) return false;
        w.onKick(clientId);
        return true;
      },
      committed: () => w.commit(),
    },
    connect(clientId, { protocolVersion = 5, expiry = 3600, receiveMaximum = 10 } = {}) {
      const outcome = router.connect({
        clientId,
        cleanStart: false,
        sessionExpiryInterval: expiry,
        receiveMaximum,
        protocolVersion,
        sink: { publish: () => true, pubrel: () => undefined },
      });
      router.bind(clientId, outcome.generation);
      const info: ConnectionInfo = { clientId, remote: "127.0.0.1:50000", listener: "tcp", protocolVersion, connectedAt: clock.now(), keepAlive: 60, cleanStart: false, username: "alice" };
      connections.set(clientId, { info, generation: outcome.generation });
    },
    disconnect(clientId) {
      const c = connections.get(clientId);
      if (c === undefined) return;
      connections.delete(clientId);
      router.disconnect(clientId, c.generation, { publishWill: true });
    },
    subscribe(clientId, filter, qos = 1) {
      const c = connections.get(clientId);
      if (c === undefined) throw new Error(`${clientId} is not connected`);
      router.subscribe(clientId, c.generation, [{ filter, qos, noLocal: false, retainAsPublished: false, retainHandling: 0 }]);
    },
    publish(topic, payload, { retain = false, qos = 1 } = {}) {
      router.publish({ topic, payload: new TextEncoder().encode(payload), qos, retain, properties: {} });
    },
    onKick: (clientId) => {
      w.disconnect(clientId);
    },
    commit: () => Promise.resolve(),
    ask(method, target, token = TOKEN) {
      const query = target.indexOf("?");
      return routes({
        method,
        path: query === -1 ? target : target.slice(0, query),
        query: query === -1 ? "" : target.slice(query + 1),
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
        remote: "127.0.0.1:40000",
      });
    },
    async askJson(method, target, token) {
      const reply = await w.ask(method, target, token);
      if (reply === undefined) throw new Error(`${target} is not routed`);
      return { status: reply.status, body: JSON.parse(reply.body) as unknown, headers: reply.headers ?? {} };
    },
  };
  const stats = options.stats ?? ((): StatsJson => { throw new Error("no stats in this test"); });
  const routes = createAdminRoutes({ token: "token" in options ? options.token : TOKEN, broker: w.broker, log, stats, disconnectWaitMs: options.disconnectWaitMs ?? 1000 });
  return w;
}
