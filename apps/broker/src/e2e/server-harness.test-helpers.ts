// Test-only: a whole broker started through startServer from flags, in a fresh data directory,
// with its MQTT.js clients and the directory cleaned up after each test.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import mqtt, { type MqttClient } from "mqtt";
import { pino } from "pino";
import { afterEach } from "vitest";
import { loadConfig } from "../config/index.js";
import { startServer, type Server } from "../server.js";
import { collect } from "./harness.test-helpers.js";

/** One test file's broker server, reset after every test. */
export interface ServerFixture {
  /**
   * Starts a server on loopback with free ports and `flags` on top; `files` are written into a
   * fresh data directory first (pass a function to name paths inside it).
   */
  readonly start: (flags: string[] | ((dir: string) => string[]), files?: Readonly<Record<string, string>>) => Promise<Server>;
  /** The current test's data directory. */
  readonly dir: string | undefined;
  /** Ends `client` after the test. */
  readonly track: (client: MqttClient) => MqttClient;
  /** Connects MQTT.js (MQTT 5 by default) and waits for CONNACK. */
  readonly connect: (url: string, options?: mqtt.IClientOptions) => Promise<MqttClient>;
  /** The test closed the server itself. */
  readonly closed: () => void;
}

/** Registers the cleanup and returns the fixture; call once at the top of a test file. */
export function serverFixture(): ServerFixture {
  const log = pino({ level: process.env["HANDOFF_TEST_LOG"] ?? "silent" });
  let server: Server | undefined;
  let dir: string | undefined;
  const dirs: string[] = [];
  const clients: MqttClient[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    await server?.close();
    server = undefined;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    dir = undefined;
  });

  const track = (client: MqttClient): MqttClient => {
    clients.push(client);
    collect(client); // from the first packet on
    return client;
  };

  return {
    get dir() {
      return dir;
    },
    track,
    closed: () => {
      server = undefined;
    },
    start: async (flags, files = {}) => {
      const d = mkdtempSync(join(tmpdir(), "handoff-broker-"));
      dir = d;
      dirs.push(d);
      for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
      const extra = typeof flags === "function" ? flags(d) : flags;
      const loaded = loadConfig(["--host", "127.0.0.1", "--port", "0", "--ws-port", "0", "--http-port", "0", "--data-dir", d, ...extra], {}, (p) => readFileSync(p, "utf8"));
      if (loaded.kind !== "run") throw new Error("help");
      server = await startServer(loaded.config, log);
      return server;
    },
    connect: async (url, options = {}) => {
      const client = track(mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: WAIT_LIMIT_MS, protocolVersion: 5, ...options }));
      await new Promise<void>((resolve, reject) => {
        client.once("connect", () => {
          resolve();
        });
        client.once("error", reject);
      });
      return client;
    },
  };
}
