/**
 * Starts a whole broker from its settings, as the CLI runs it: {@link openBroker} (the library's
 * `createBroker`) and every configured listener. main.ts adds the process concerns (signals, exit
 * codes); tests start servers through here.
 * @module
 */
import type { Logger } from "pino";
import type { BrokerConfig } from "./config/index.js";
import { openBroker, type BrokerPorts } from "./create-broker.js";
import type { Broker } from "./mqtt/broker.js";

export { VERSION } from "./version.js";

/** A running broker. */
export interface Server {
  readonly broker: Broker;
  /** Bound ports by listener (only the enabled ones), plus `http`. */
  readonly ports: BrokerPorts;
  /** Re-reads the password and ACL files (SIGHUP). */
  reload(): Promise<void>;
  /** Publishes the `$SYS` topics now (they also go out at start and every 10 s). */
  publishSys(): void;
  /** Graceful stop: refuse new connections, DISCONNECT 0x8B to clients, flush, close. */
  close(): Promise<void>;
}

/** Starts everything `config` asks for. */
export async function startServer(config: BrokerConfig, log: Logger): Promise<Server> {
  if (config.loopbackOnly) {
    log.warn(
      "anonymous clients are allowed and no host is configured, so the broker listens on loopback (127.0.0.1) only; to accept clients from other machines set a password file, or --host 0.0.0.0 (host: 0.0.0.0 in the config file) to let anonymous clients in from anywhere",
    );
  }
  const { embedded, broker } = await openBroker(config, log, { processMetrics: true });
  const ports = await embedded.listen();
  return {
    broker,
    ports,
    publishSys: () => {
      embedded.publishSys();
    },
    reload: async () => {
      const summary = await embedded.reload();
      log.info(summary, "auth files reloaded");
    },
    close: () => embedded.close(),
  };
}
