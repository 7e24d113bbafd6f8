/**
 * Child process entry running the null broker (null-broker.ts) on its own: the floor of what a
 * connected, subscribed client costs a Node process that holds it with `node:net`, for the peers
 * bench's memory row. It prints the "broker listening" line targets.ts waits for and stops on
 * SIGTERM or when its parent goes away.
 * @module
 */
import { startNullBroker } from "./null-broker.js";

const broker = await startNullBroker();
process.stdout.write(`${JSON.stringify({ msg: "broker listening", mqtt: broker.port })}\n`);

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  void broker.stop().then(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.on("disconnect", stop);
