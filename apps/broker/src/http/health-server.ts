/**
 * The broker's operators' endpoint: app-kit's `/health` and `/metrics` server, with the broker's
 * health fields (open connections, the durable store) and its 503 while the store cannot take work.
 * @module
 */
import { createHttpServer as createAppHttpServer, type HttpServer, type HttpServerOptions as AppHttpServerOptions } from "@handoff/app-kit";

/** What `/health` reports besides status and uptime. */
export interface HealthStatus {
  /** Open MQTT connections. */
  readonly connections: number;
  /** The durable store, if there is one: not ok (503, `storage-unavailable`) while it cannot take new work. */
  readonly storage?: { readonly ok: boolean; readonly consecutiveFailures: number; readonly pendingBytes: number };
}

/** Options of {@link createHttpServer}: app-kit's, with the broker's health status. */
export interface HttpServerOptions extends Omit<AppHttpServerOptions, "status"> {
  /** Called on each `/health` request. */
  readonly status: () => HealthStatus;
}

/** Creates the server (not yet listening). */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  return createAppHttpServer({
    ...options,
    status: () => {
      const { connections, storage } = options.status();
      return {
        fields: { connections, ...(storage === undefined ? {} : { storage }) },
        ...(storage?.ok === false ? { problem: "storage-unavailable" } : {}),
      };
    },
  });
}
