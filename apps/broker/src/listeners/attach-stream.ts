/**
 * One accepted byte stream handed to the broker: its transport, paced input, and the close. The
 * broker's own TCP and TLS listeners use it, and so does `handle(stream)` for a service's own.
 * @module
 */
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import type { Broker } from "../mqtt/broker.js";
import type { Transport } from "../mqtt/transport.js";
import { pacedReader } from "./paced-reader.js";
import { SocketTransport, remoteOf } from "./socket-transport.js";

/** Runs an MQTT connection over `stream` until either side closes it. */
export function attachStream(broker: Broker, log: Logger, stream: Duplex, listener: Transport["listener"], remote = remoteOf(stream)): void {
  const transport = new SocketTransport(stream, listener, remote);
  const events = broker.attach(transport);
  if (events === undefined) return;
  // The paced reader must not resume a stream that flow control paused: the transport knows.
  const reader = pacedReader(transport, (slice) => {
    events.data(slice);
  });
  stream.on("data", (chunk: Buffer | string) => {
    reader(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  });
  stream.on("error", (err) => {
    log.debug({ err, remote: transport.remote }, "socket error");
  });
  stream.on("close", () => {
    events.closed();
  });
}
