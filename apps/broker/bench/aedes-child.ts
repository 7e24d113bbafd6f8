/**
 * Child process entry running aedes (MQTT 3.1.1) on 127.0.0.1, port chosen by the system. It
 * prints the same "broker listening" JSON line as handoff's main.ts so targets.ts treats both
 * alike, and stops on SIGTERM or when its parent goes away (IPC disconnect).
 * @module
 */
import { createServer } from "node:net";
import { Aedes } from "aedes";

const aedes = await Aedes.createBroker();
const server = createServer((socket) => {
  aedes.handle(socket);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = address !== null && typeof address === "object" ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ msg: "broker listening", mqtt: port })}\n`);
});

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  server.close();
  aedes.close(() => {
    process.exit(0);
  });
  // Stuck connections must not keep the process alive.
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.on("disconnect", stop);
